#include "cli/recorded_options.h"

namespace jitbench {
namespace {
const char* ceilings_word(CeilingsMode m) {
  return m == CeilingsMode::On ? "on" : m == CeilingsMode::Off ? "off" : "auto";
}
CeilingsMode ceilings_mode(const std::string& word) {
  return word == "on" ? CeilingsMode::On : word == "off" ? CeilingsMode::Off : CeilingsMode::Auto;
}

// The members both kinds name and type alike, copied either way: one list,
// so that a member added to both is carried in both directions.
template <class From, class To>
void copy_alike(const From& f, To& t) {
  t.suite_file = f.suite_file;
  t.python = f.python;
  t.costs_dir = f.costs_dir;
  t.machine = f.machine;
  t.deterministic = f.deterministic;
  t.cold_runs = f.cold_runs, t.warm_iters = f.warm_iters, t.warm_runs = f.warm_runs;
  t.min_runs = f.min_runs, t.max_runs = f.max_runs;
  t.timeout_s = f.timeout_s, t.target_ci_pct = f.target_ci_pct, t.max_time_s = f.max_time_s;
  t.cases = f.cases, t.backends = f.backends;
  t.cache_policies = f.cache_policies, t.precisions = f.precisions;
  t.workload_paths = f.workload_paths;
  t.envs = f.envs, t.env_vars = f.env_vars, t.find_links = f.find_links;
  t.no_index = f.no_index, t.no_interleave = f.no_interleave, t.anatomy = f.anatomy, t.count = f.count;
  t.affinity = f.affinity;
  t.anatomy_runs = f.anatomy_runs, t.count_runs = f.count_runs, t.jobs = f.jobs;
  t.count_source = f.count_source;
}
}  // namespace

RecordedOptions recorded_options(const RunOptions& o) {
  RecordedOptions r;
  copy_alike(o, r);
  for (const auto& k : o.kept_files) r.kept_files.push_back({k.source, k.file});
  r.ceilings = ceilings_word(o.ceilings);
  if (o.shard) r.shard = RecordedShard{o.shard->index, o.shard->count};
  return r;
}

RunOptions run_options(const RecordedOptions& r) {
  RunOptions o;
  copy_alike(r, o);
  for (const auto& k : r.kept_files) o.kept_files.push_back({k.source, k.file, ""});  // read from the run's copy
  o.ceilings = ceilings_mode(r.ceilings);
  if (r.shard) o.shard = ShardSpec{r.shard->index, r.shard->count};
  return o;
}

}  // namespace jitbench
