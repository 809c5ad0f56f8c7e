#include "cli/recorded_options.h"

namespace jitbench {
namespace {
const char* ceilings_word(CeilingsMode m) {
  return m == CeilingsMode::On ? "on" : m == CeilingsMode::Off ? "off" : "auto";
}
CeilingsMode ceilings_mode(const std::string& word) {
  return word == "on" ? CeilingsMode::On : word == "off" ? CeilingsMode::Off : CeilingsMode::Auto;
}
}  // namespace

RecordedOptions recorded_options(const RunOptions& o) {
  RecordedOptions r;
  r.suite_file = o.suite_file;
  r.python = o.python;
  r.costs_dir = o.costs_dir;
  r.machine = o.machine;
  r.deterministic = o.deterministic;
  r.cold_runs = o.cold_runs, r.warm_iters = o.warm_iters, r.warm_runs = o.warm_runs;
  r.min_runs = o.min_runs, r.max_runs = o.max_runs;
  r.timeout_s = o.timeout_s, r.target_ci_pct = o.target_ci_pct, r.max_time_s = o.max_time_s;
  r.cases = o.cases, r.backends = o.backends;
  r.cache_policies = o.cache_policies, r.precisions = o.precisions;
  r.workload_paths = o.workload_paths;
  for (const auto& k : o.kept_files) r.kept_files.push_back({k.source, k.file});
  r.ceilings = ceilings_word(o.ceilings);
  if (o.shard) r.shard = RecordedShard{o.shard->index, o.shard->count};
  r.envs = o.envs, r.env_vars = o.env_vars, r.find_links = o.find_links;
  r.no_index = o.no_index, r.no_interleave = o.no_interleave, r.anatomy = o.anatomy, r.count = o.count;
  r.affinity = o.affinity;
  r.anatomy_runs = o.anatomy_runs, r.count_runs = o.count_runs, r.jobs = o.jobs;
  r.count_source = o.count_source;
  return r;
}

RunOptions run_options(const RecordedOptions& r) {
  RunOptions o;
  o.suite_file = r.suite_file;
  o.python = r.python;
  o.costs_dir = r.costs_dir;
  o.machine = r.machine;
  o.deterministic = r.deterministic;
  o.cold_runs = r.cold_runs, o.warm_iters = r.warm_iters, o.warm_runs = r.warm_runs;
  o.min_runs = r.min_runs, o.max_runs = r.max_runs;
  o.timeout_s = r.timeout_s, o.target_ci_pct = r.target_ci_pct, o.max_time_s = r.max_time_s;
  o.cases = r.cases, o.backends = r.backends;
  o.cache_policies = r.cache_policies, o.precisions = r.precisions;
  o.workload_paths = r.workload_paths;
  for (const auto& k : r.kept_files) o.kept_files.push_back({k.source, k.file, ""});  // read from the run's copy
  o.ceilings = ceilings_mode(r.ceilings);
  if (r.shard) o.shard = ShardSpec{r.shard->index, r.shard->count};
  o.envs = r.envs, o.env_vars = r.env_vars, o.find_links = r.find_links;
  o.no_index = r.no_index, o.no_interleave = r.no_interleave, o.anatomy = r.anatomy, o.count = r.count;
  o.affinity = r.affinity;
  o.anatomy_runs = r.anatomy_runs, o.count_runs = r.count_runs, o.jobs = r.jobs;
  o.count_source = r.count_source;
  return o;
}

}  // namespace jitbench
