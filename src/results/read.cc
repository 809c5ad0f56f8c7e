#include "results/read.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <type_traits>

#include "results/anatomy.h"
#include "results/interference.h"
#include "results/views.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/json_get.h"
#include "util/json_parse.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
// A field that breaks the format: caught once per file and reported with its name.
struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

json parse_object(const std::string& text) {
  auto parsed = parse_json(text);
  if (auto* e = std::get_if<std::string>(&parsed)) throw BadField(*e);
  json j = std::get<json>(std::move(parsed));
  if (!j.is_object()) throw BadField("not a JSON object");
  return j;
}

std::optional<double> opt_num(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j.at(key).get<double>();
}
// A path an index lists: it must stay inside the directory the index is in.
std::string inside_path(const json& v) {
  const auto p = v.get<std::string>();
  if (!is_plain_relative(p)) throw BadField(fmt::format("path '{}' does not stay inside the out dir", p));
  return p;
}
std::string opt_str(const json& j, const char* key) { return string_or(j, key, ""); }

template <typename T>
T parsed(std::optional<T> v, const std::string& what, const std::string& text) {
  if (!v) throw BadField(fmt::format("unknown {} '{}'", what, text));
  return *v;
}
Status status_of(const json& j) { return parsed(parse_status(j.at("status").get<std::string>()), "status", j.at("status").get<std::string>()); }
Reason reason_of(const json& j) {
  const auto text = opt_str(j, "reason");
  return parsed(parse_reason(text), "reason", text);
}

// v3: what jitbench saw itself. v1/v2: the listing counts jitbench kept and
// the worker's own inotify count, marked as not recorded by jitbench.
void read_cache_observed(const json& j, RunRecord& r) {
  auto& seen = r.cache_seen;
  if (j.contains("cache_observed")) {
    const auto& o = j.at("cache_observed");
    seen.recorded = true;
    seen.watched = o.at("watched").get<bool>();
    seen.note = opt_str(o, "note");
    for (auto [key, field] : {std::pair{"files_before", &seen.files_before}, {"bytes_before", &seen.bytes_before},
                              {"files_after", &seen.files_after}, {"bytes_after", &seen.bytes_after},
                              {"entries_read", &seen.entries_read}, {"added", &seen.added},
                              {"modified", &seen.modified}, {"removed", &seen.removed}})
      *field = o.at(key).get<std::uint64_t>();
    return;
  }
  seen.files_before = j.at("cache_dir_files").at("before").get<std::uint64_t>();
  seen.files_after = j.at("cache_dir_files").at("after").get<std::uint64_t>();
  seen.bytes_before = j.at("cache_dir_bytes").at("before").get<std::uint64_t>();
  seen.bytes_after = j.at("cache_dir_bytes").at("after").get<std::uint64_t>();
  seen.watched = r.worker.files.watched;
  seen.entries_read = static_cast<std::uint64_t>(r.worker.files.entries_read);
  seen.added = static_cast<std::uint64_t>(r.worker.files.entries_written);
  seen.note = "recorded by the worker, before jitbench watched the cache itself (jitbench.case.v1/v2)";
}

// v5's per-run "interference"; absent or null: not reported.
std::optional<Interference> read_interference(const json& j) {
  if (!j.contains("interference") || j["interference"].is_null()) return std::nullopt;
  const auto& o = j.at("interference");
  Interference x;
  x.other_cpu_s = o.at("other_cpu_s").get<double>();
  x.steal_s = o.at("steal_s").get<double>();
  x.nivcsw = o.at("nivcsw").get<long>();
  x.worker_cpu_s = o.at("worker_cpu_s").get<double>();
  x.wall_s = o.at("wall_s").get<double>();
  x.load_start = opt_num(o, "load_start");
  x.load_end = opt_num(o, "load_end");
  x.n_cpus = o.at("n_cpus").get<int>();
  x.interfered = o.at("interfered").get<bool>();
  return x;
}

// A run's "buckets" (jitbench.case.v5; absent in older files and from workers that do not stamp their life).
std::optional<HarnessBuckets> read_buckets(const json& j) {
  if (!j.contains("buckets") || !j["buckets"].is_object()) return std::nullopt;
  const auto& x = j["buckets"];
  HarnessBuckets b;
  b.interpreter_start_s = x.at("interpreter_start_s").get<double>();
  b.harness_import_s = x.at("harness_import_s").get<double>();
  b.harness_observe_s = x.at("harness_observe_s").get<double>();
  b.harness_verify_s = x.at("harness_verify_s").get<double>();
  b.harness_report_s = x.at("harness_report_s").get<double>();
  b.harness_exit_s = x.at("harness_exit_s").get<double>();
  b.worker_span_s = x.at("worker_span_s").get<double>();
  b.unattributed_s = x.at("unattributed_s").get<double>();
  return b;
}

// jitbench.case.v7's peak_rss is what the worker's report and wait4 say,
// and a run that is not failed holds figures that can be true (the run's own
// check, RunRecord::memory_inconsistency); earlier versions carry no block.
void check_peak_rss(const json& j, const RunRecord& r, const std::string& mode) {
  if (r.status != Status::Failed)
    if (auto why = r.memory_inconsistency(); !why.empty())
      throw BadField(fmt::format("a {} run that is not failed reports a peak RSS that cannot be true ({}): the file "
                                 "was edited", mode, why));
  if (!j.contains("peak_rss")) return;
  const auto& p = j.at("peak_rss");
  const auto workload = r.workload_peak_rss_kib();
  const auto process = r.process_peak_rss_kib();
  const auto& w = p.at("workload_kib");
  const auto& q = p.at("process_kib");
  const bool same = (w.is_null() ? !workload : workload && w.get<double>() == *workload) &&
                    (q.is_null() ? !process : process && q.get<long>() == *process);
  if (!same)
    throw BadField(fmt::format("a {} run's peak_rss is not what its worker report and rusage say: the file was edited",
                               mode));
}

// A counting process's "counts" (run --count; absent in older files and in other runs).
std::optional<RunCounts> read_run_counts(const json& j) {
  if (!j.contains("counts") || !j["counts"].is_object()) return std::nullopt;
  const auto& x = j["counts"];
  RunCounts c;
  c.source = x.at("source").get<std::string>();
  for (const auto& s : x.at("segments")) c.segments.push_back({s.at("name").get<std::string>(), s.at("instructions").get<double>()});
  c.warm_calls = x.at("warm_calls").get<int>();
  c.first_call_split = opt_str(x, "first_call_split");
  c.scope = opt_str(x, "scope");
  c.fake = x.value("fake", false);
  return c;
}

RunRecord read_run_record(const json& j);

// A case's "counts" (run --count): how they were counted and the counting processes.
void read_counts(const json& j, CaseResult& r) {
  if (!j.contains("counts") || !j["counts"].is_object()) return;
  const auto& x = j["counts"];
  r.count_runs = x.value("runs_requested", 0);
  const auto& s = x.at("setup");
  CountSetup c;
  c.source = s.at("source").get<std::string>();
  c.chosen = opt_str(s, "chosen");
  c.tool = opt_str(s, "tool");
  c.version = opt_str(s, "version");
  c.options = s.value("options", std::vector<std::string>{});
  c.controls = s.value("controls", std::map<std::string, std::string>{});
  c.calls = s.value("calls", 0);
  c.timeout_s = s.value("timeout_s", 0.0);
  c.jobs = s.value("jobs", 1);
  c.unsupported = opt_str(x, "unsupported");
  r.count = c;
  for (const auto& run : x.value("runs", json::array())) r.counted.push_back(read_run_record(run));
}

RunRecord read_run_record(const json& j) {
  RunRecord r;
  const auto mode = j.at("mode").get<std::string>();
  r.mode = parsed(parse_run_mode(mode), "mode", mode);
  r.index = j.at("index").get<int>();
  r.status = status_of(j);
  r.reason = reason_of(j);
  r.detail = opt_str(j, "detail");
  r.process_start_s = opt_num(j, "process_start_s");
  read_measured_times(j, r);
  r.wall_s = j.at("wall_s").get<double>();
  r.exit_kind = j.at("exit").at("kind").get<std::string>();
  r.exit_code = j.at("exit").at("code").get<int>();
  r.signal = j.at("exit").at("signal").get<int>();
  r.max_rss_kib = j.at("rusage").at("max_rss_kib").get<long>();
  if (const auto& ru = j.at("rusage"); ru.contains("pre_exec_rss_kib")) {
    r.pre_exec_rss_kib = ru.at("pre_exec_rss_kib").get<long>();
    // wait4 folds the child's pre-exec peak into ru_maxrss: never larger.
    if (*r.pre_exec_rss_kib > r.max_rss_kib)
      throw BadField(fmt::format("rusage.pre_exec_rss_kib {} exceeds max_rss_kib {}, which holds it: the file was "
                                 "edited",
                                 *r.pre_exec_rss_kib, r.max_rss_kib));
  }
  r.user_s = j.at("rusage").at("user_s").get<double>();
  r.sys_s = j.at("rusage").at("sys_s").get<double>();
  r.interference = read_interference(j);
  // The figures the writer measured can be a process's; an edit may make them what none can be. Figures
  // above the machine's capacity are capped, as the sampler caps them now (a run written before it did).
  if (r.interference) cap_to_capacity(*r.interference);
  if (r.interference)
    if (auto why = interference_impossible(*r.interference); !why.empty())
      throw BadField(fmt::format("a {} run's interference cannot be a process's ({}): the file was edited", mode, why));
  r.log = opt_str(j, "log");
  r.worker = parse_worker_report(j.value("worker", json::object()));
  check_peak_rss(j, r, mode);
  // The anatomy's nesting rule, as the run enforced it: a run that broke it was failed then.
  if (r.status != Status::Failed && !r.worker.anatomy.empty())
    if (auto why = anatomy_rule_broken(r.worker.anatomy, r.first_call_s))
      throw BadField(fmt::format("a {} run that is not failed breaks the anatomy's nesting rule ({}): the file was "
                                 "edited", mode, *why));
  read_cache_observed(j, r);
  r.buckets = read_buckets(j);
  r.counts = read_run_counts(j);
  return r;
}

std::optional<RunRecord> optional_run(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return read_run_record(j[key]);
}

// v4's "sampling": the rule and why each side stopped (the intervals are recomputed from the runs).
SamplingRecord read_sampling(const json& j) {
  SamplingRecord s;
  if (!j.contains("sampling") || !j["sampling"].is_object()) return s;
  const auto& sj = j["sampling"];
  s.recorded = true;
  if (sj.value("rule", "") == "target_ci") {
    stats::StoppingRule rule;
    rule.target_pct = sj.at("target_ci_pct").get<double>();
    rule.min_runs = sj.at("min_runs").get<int>();
    rule.max_runs = sj.at("max_runs").get<int>();
    if (sj.contains("max_time_s") && sj["max_time_s"].is_number()) rule.max_time_s = sj["max_time_s"].get<double>();
    s.rule = rule;
  }
  if (sj.contains("warm_calls") && sj["warm_calls"].is_object()) {
    s.warm_min_calls = sj["warm_calls"].value("min", 0);
    if (sj["warm_calls"].contains("min_time_s") && sj["warm_calls"]["min_time_s"].is_number())
      s.warm_min_time_s = sj["warm_calls"]["min_time_s"].get<double>();
  }
  s.cold_stopped = opt_str(sj.at("cold"), "stopped");
  s.warm_stopped = opt_str(sj.at("warm"), "stopped");
  return s;
}

// A case's summaries restate its runs (export/json/case_json.cc writes them from
// cold_values and warm_values): readers that take the summary (jitbench.load(),
// say) and readers that recompute from the runs (compare) must see one number.
bool stated_as(const json& v, double x) {
  if (!v.is_number()) return false;
  const double y = v.get<double>();
  return y == x || std::abs(y - x) <= 1e-9 * std::max(std::abs(x), std::abs(y));
}
// n and the median only: exact and cheap to recompute. The bootstrap interval
// is not compared: its resamples depend on the standard library that built the
// writer (std::uniform_int_distribution's mapping is not fixed), and redrawing
// 2,000 resamples of every sample on every read would cost seconds.
// The stated interval is only held to what any resample's median can be: inside the sample's range.
bool summary_agrees(const json& stated, std::span<const double> values) {
  if (values.empty() || stated.is_null()) return values.empty() && stated.is_null();
  const auto median = stats::median(values);
  if (!(stated.is_object() && stated.contains("n") && stated["n"].is_number_unsigned() &&
        stated["n"].get<std::size_t>() == values.size() && median && stated_as(stated.value("median", json()), *median)))
    return false;
  if (!stated.contains("median_ci95")) return true;
  const auto& ci = stated["median_ci95"];
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const auto within = [&](const json& v) { return v.is_number() && (stated_as(v, *lo) || v.get<double>() >= *lo) &&
                                                  (stated_as(v, *hi) || v.get<double>() <= *hi); };
  return ci.is_array() && ci.size() == 2 && within(ci[0]) && within(ci[1]) && ci[0].get<double>() <= ci[1].get<double>();
}
// A run's derived figures restate its parts (export/json/case_json.cc's run_json
// writes them from RunRecord's accessors): a reader that takes a run's
// ttfr_s (jitbench.load()'s samples, say) sees what one that adds the phases sees.
void check_derived(const json& runs, const std::vector<RunRecord>& records, const char* side) {
  if (!runs.is_array() || runs.size() != records.size()) return;
  for (std::size_t i = 0; i < records.size(); ++i)
    for (const char* name : {"ttfr_s", "process_ttfr_s", "harness_gap_s"}) {
      if (!runs[i].is_object() || !runs[i].contains(name)) continue;
      const auto& stated = runs[i][name];
      const auto x = metric(records[i], name);
      if (x ? !stated_as(stated, *x) : !stated.is_null())
        throw BadField(fmt::format("{}.runs[{}].{} disagrees with the run's own phases: the file was edited", side, i,
                                   name));
    }
}
void check_summaries(const json& j, const CaseResult& r) {
  const auto edited = [](const std::string& what) {
    return BadField(fmt::format("{} disagrees with the runs it summarises: the file was edited", what));
  };
  const auto& cold = j.at("cold");
  check_derived(cold.at("runs"), r.cold, "cold");
  if (j.at("warm").contains("runs")) check_derived(j["warm"]["runs"], r.warm, "warm");
  if (cold.contains("summary"))
    for (const auto& [metric, stated] : cold["summary"].items())
      if (std::find(cold_metrics().begin(), cold_metrics().end(), metric) != cold_metrics().end() &&
          !summary_agrees(stated, cold_values(r, metric)))
        throw edited("cold.summary." + metric);
  const auto& warm = j.at("warm");
  if (warm.contains("summary") && !summary_agrees(warm["summary"], warm_values(r))) throw edited("warm.summary");
  if (warm.contains("process_medians_s")) {
    const auto medians = warm_process_medians(r);
    const auto& stated = warm["process_medians_s"];
    bool same = stated.is_array() && stated.size() == medians.size();
    for (std::size_t k = 0; same && k < medians.size(); ++k) same = stated_as(stated[k], medians[k]);
    if (!same) throw edited("warm.process_medians_s");
  }
}

// What an ok case was recorded with: a cold run that measured, a warm one
// where warm calls were asked for; and each run of any case once. (A warn
// case may have measured nothing: a GPU backend without a GPU is
// warn/gpu_unavailable with its one unmeasured cold run.)
void check_measured(const CaseResult& r) {
  const auto unique = [](const std::vector<RunRecord>& runs, const char* mode) {
    std::set<int> seen;
    for (const auto& run : runs)
      if (!seen.insert(run.index).second)
        throw BadField(fmt::format("{} run {} is recorded twice: the file was edited", mode, run.index));
  };
  unique(r.cold, "cold");
  unique(r.warm, "warm");
  if (r.status != Status::Ok) return;
  const auto measured = [](const std::vector<RunRecord>& runs) { return std::any_of(runs.begin(), runs.end(), has_timings); };
  if (!measured(r.cold)) throw BadField("an ok case with no cold run that measured: the file was edited");
  if (r.warm_iters > 0 && r.warm_runs > 0 && !measured(r.warm))
    throw BadField("an ok case that asked for warm calls has no warm run that measured: the file was edited");
}

CaseResult read_case_document(const json& j) {
  const auto& cfg = j.at("config");
  const auto dtype = cfg.at("dtype").get<std::string>() == "float32" ? "f32" : "f64";
  const auto policy_text = cfg.at("cache_policy").get<std::string>();
  const auto precision_text = cfg.value("precision", "default");
  CaseResult r;
  r.c = make_case(cfg.at("backend").get<std::string>(), cfg.at("workload").get<std::string>(),
                  cfg.at("n").get<long>(), dtype, parsed(parse_cache_policy(policy_text), "cache policy", policy_text),
                  parsed(parse_precision(precision_text), "precision", precision_text), cfg.value("environment", ""));
  r.c.id = j.at("case").get<std::string>();  // as the run named it
  r.cold_runs = cfg.at("cold_runs").get<int>();
  r.warm_iters = cfg.at("warm_iters").get<int>();
  r.warm_runs = cfg.value("warm_runs", r.warm_iters > 0 ? 1 : 0);
  r.timeout_s = cfg.at("timeout_s").get<double>();
  r.deterministic = cfg.at("deterministic").get<bool>();
  r.seed = cfg.at("seed").get<std::uint64_t>();
  r.status = status_of(j);
  r.reason = reason_of(j);
  r.detail = opt_str(j, "detail");
  for (const auto& run : j.at("cold").at("runs")) r.cold.push_back(read_run_record(run));
  const auto& warm = j.at("warm");
  if (warm.contains("runs")) {
    for (const auto& run : warm["runs"]) r.warm.push_back(read_run_record(run));
  } else if (warm.contains("run") && !warm["run"].is_null()) {
    r.warm.push_back(read_run_record(warm["run"]));  // v1 before --warm-runs
  }
  r.priming = optional_run(j, "priming");
  r.crosscheck = optional_run(j, "crosscheck");
  if (j.contains("anatomy") && j["anatomy"].is_object()) {  // jitbench.case.v6, run --anatomy
    r.anatomy_runs = j["anatomy"].value("runs_requested", 0);
    for (const auto& run : j["anatomy"].value("runs", json::array())) r.anatomy.push_back(read_run_record(run));
  }
  read_counts(j, r);
  r.sampling = read_sampling(j);
  r.cache_dir = opt_str(j.at("cache"), "dir");
  r.worker_env = j.value("worker_env", std::map<std::string, std::string>{});
  for (const auto& f : j.value("inherited_cache_settings", json::array()))
    r.inherited_cache_settings.push_back(
        {f.at("variable").get<std::string>(), f.at("value").get<std::string>(), f.at("action").get<std::string>()});
  r.started_at = opt_str(j, "started_at");
  r.finished_at = opt_str(j, "finished_at");
  check_measured(r);
  // Summaries written by today's definitions: case.v7 on (an earlier version's
  // were computed by the rules of their day, e.g. harness_gap_s before the
  // interpreter's start-up was measured, and stay as written).
  if (j.value("schema_version", "") == "jitbench.case.v7") check_summaries(j, r);
  return r;
}

// The index's optional sections (results/index_sections.h), as every index version wrote them.
GitBuild read_git_build(const json& j) {
  return {j.at("describe").get<std::string>(), j.at("sha").get<std::string>(), j.at("ref").get<std::string>(),
          j.at("repository").get<std::string>(), j.at("dirty").get<bool>()};
}
std::vector<Resumption> read_resumptions(const json& list) {
  std::vector<Resumption> out;
  for (const auto& r : list) {
    Resumption x{opt_str(r, "at"), r.at("kept").get<std::size_t>(),
                 r.at("remeasured").get<std::vector<std::string>>(), std::nullopt, std::nullopt};
    if (r.contains("slurm")) x.slurm = r.at("slurm").get<SlurmIds>();
    if (r.contains("jitbench_git")) x.jitbench_git = read_git_build(r.at("jitbench_git"));
    out.push_back(std::move(x));
  }
  return out;
}
MergedSection read_merged_section(const json& j) {
  MergedSection m;
  for (const auto& s : j.at("shards")) {
    MergedShard x{s.at("dir").get<std::string>(), s.at("shard").get<std::string>(),
                  s.at("index_sha256").get<std::string>(), s.at("cases").get<std::size_t>(),
                  s.at("environment").get<std::string>(), std::nullopt, std::nullopt};
    if (s.contains("slurm")) x.slurm = s.at("slurm").get<SlurmIds>();
    // The schema leaves these items open (a shard's own list, copied): one this
    // reader cannot type is not kept, and the merged run still reads.
    if (s.contains("resumed")) try {
        x.resumed = read_resumptions(s.at("resumed"));
      } catch (const json::exception&) {
      }
    m.shards.push_back(std::move(x));
  }
  m.missing_shards = j.at("missing_shards").get<std::vector<std::string>>();
  m.missing_cases = j.at("missing_cases").get<std::vector<std::string>>();
  m.environments = j.at("environments").get<std::vector<std::string>>();
  return m;
}
std::vector<RecordedEnvironment> read_recorded_environments(const json& list) {
  std::vector<RecordedEnvironment> out;
  for (const auto& e : list) {
    RecordedEnvironment x;
    x.name = e.at("name").get<std::string>();
    x.requirements = e.at("requirements").get<std::vector<std::string>>();
    x.python_request = e.at("python_request").get<std::string>();
    x.variables = e.at("variables").get<std::map<std::string, std::string>>();
    if (e.at("file").is_string()) x.file = inside_path(e.at("file"));
    x.ok = e.at("ok").get<bool>();
    x.reason = opt_str(e, "reason");
    x.build = e.at("build");
    out.push_back(std::move(x));
  }
  return out;
}
std::vector<InterleavedGroup> read_interleaved(const json& list) {
  std::vector<InterleavedGroup> out;
  for (const auto& g : list) {
    InterleavedGroup x;
    x.cases = g.at("cases").get<std::vector<std::string>>();
    if (g.contains("runs")) x.runs = g.at("runs").get<std::vector<std::string>>();
    for (const auto& st : g.at("order")) x.order.push_back({st.at("case").get<std::size_t>(), st.at("cold").get<int>()});
    out.push_back(std::move(x));
  }
  return out;
}
template <typename T>
std::optional<T> opt_of(const json& j, const char* key) {
  return j.contains(key) && !j.at(key).is_null() ? std::optional<T>(j.at(key).get<T>()) : std::nullopt;
}
RecordedOptions read_recorded_options(const json& j) {
  RecordedOptions r;
  r.suite_file = j.at("suite_file").get<std::string>(), r.python = j.at("python").get<std::string>();
  r.costs_dir = j.at("costs_dir").get<std::string>(), r.machine = j.at("machine").get<std::string>();
  r.deterministic = j.at("deterministic").get<bool>();
  r.cold_runs = opt_of<int>(j, "cold_runs"), r.warm_iters = opt_of<int>(j, "warm_iters");
  r.warm_runs = opt_of<int>(j, "warm_runs"), r.min_runs = opt_of<int>(j, "min_runs");
  r.max_runs = opt_of<int>(j, "max_runs"), r.timeout_s = opt_of<double>(j, "timeout_s");
  r.target_ci_pct = opt_of<double>(j, "target_ci_pct"), r.max_time_s = opt_of<double>(j, "max_time_s");
  r.cases = j.at("cases").get<std::vector<std::string>>(), r.backends = j.at("backends").get<std::vector<std::string>>();
  for (const auto& p : j.at("cache_policies"))
    if (auto c = parse_cache_policy(p.get<std::string>())) r.cache_policies.push_back(*c);
    else throw std::runtime_error("options: unknown cache policy " + p.dump());
  for (const auto& p : j.at("precisions"))
    if (auto c = parse_precision(p.get<std::string>())) r.precisions.push_back(*c);
    else throw std::runtime_error("options: unknown precision " + p.dump());
  r.workload_paths = j.at("workload_paths").get<std::vector<std::string>>();
  for (const auto& k : j.at("kept_files")) r.kept_files.push_back({k.at("source").get<std::string>(), k.at("file").get<std::string>()});
  r.ceilings = j.at("ceilings").get<std::string>();
  if (!j.at("shard").is_null()) r.shard = RecordedShard{j.at("shard").at("index").get<int>(), j.at("shard").at("count").get<int>()};
  r.envs = j.at("envs").get<std::vector<std::string>>(), r.env_vars = j.at("env_vars").get<std::vector<std::string>>();
  r.find_links = j.at("find_links").get<std::vector<std::string>>();
  r.no_index = j.at("no_index").get<bool>(), r.no_interleave = j.at("no_interleave").get<bool>();
  r.anatomy = j.at("anatomy").get<bool>(), r.count = j.at("count").get<bool>();
  r.anatomy_runs = opt_of<int>(j, "anatomy_runs"), r.count_runs = opt_of<int>(j, "count_runs");
  r.jobs = opt_of<int>(j, "jobs"), r.count_source = j.at("count_source").get<std::string>();
  r.affinity = j.at("affinity").get<std::vector<int>>();
  return r;
}
void read_index_sections(const json& j, RunIndex& x) {
  if (j.contains("shard")) {
    const auto& s = j.at("shard");
    x.shard = ShardSection{s.at("index").get<int>(), s.at("count").get<int>(), s.at("plan_digest").get<std::string>(),
                           s.at("plan").get<std::vector<std::string>>(), s.at("costs").get<std::string>()};
  }
  if (j.contains("resumed")) x.resumed = read_resumptions(j.at("resumed"));
  if (j.contains("merged")) x.merged = read_merged_section(j.at("merged"));
  if (j.contains("slurm")) x.slurm = j.at("slurm").get<SlurmIds>();
  if (j.contains("stopped"))
    x.stopped = Stopped{j.at("stopped").at("reason").get<std::string>(), j.at("stopped").at("detail").get<std::string>()};
  if (j.contains("jitbench_git")) x.jitbench_git = read_git_build(j.at("jitbench_git"));
  if (j.contains("machine")) x.machine = MachineLabel{j.at("machine").at("label").get<std::string>()};
  if (j.contains("environments")) x.environments = read_recorded_environments(j.at("environments"));
  if (j.contains("interleaved")) x.interleaved = read_interleaved(j.at("interleaved"));
  if (j.contains("options")) x.options = read_recorded_options(j.at("options"));
}

RegistryEntry read_registry_entry(const json& s) {
  RegistryEntry e;
  e.id = s.at("id").get<std::string>();
  e.published_at = s.at("published_at").get<std::string>();
  e.path = inside_path(s.at("path"));
  e.suite = s.at("suite").get<std::string>();
  const auto& run = s.at("run");
  e.started_at = opt_str(run, "started_at");
  e.finished_at = opt_str(run, "finished_at");
  e.command = run.at("command").get<std::vector<std::string>>();
  e.jitbench_version = s.at("jitbench_version").get<std::string>();
  e.jitbench_git = read_git_build(s.at("jitbench_git"));
  const auto& m = s.at("machine");
  e.machine = m.at("key").get<std::string>();
  e.machine_label = opt_str(m, "label");
  e.cpu_model = m.at("cpu_model").get<std::string>();
  e.logical_cores = m.at("logical_cores").get<std::string>();
  e.memory_gib = m.at("memory_gib").get<double>();
  e.gpus = m.at("gpus").get<std::vector<std::string>>();
  e.environment_digest = s.at("environment_digest").get<std::string>();
  e.python_version = s.at("python_version").get<std::string>();
  e.index_sha256 = s.at("index_sha256").get<std::string>();
  e.snapshot_index_sha256 = s.at("snapshot_index_sha256").get<std::string>();
  const auto& c = s.at("cases");
  e.n_cases = c.at("n").get<std::size_t>();
  e.n_ok = c.at("ok").get<std::size_t>();
  e.n_warn = c.at("warn").get<std::size_t>();
  e.n_failed = c.at("failed").get<std::size_t>();
  if (const auto& sig = s.at("signature"); sig.is_object())
    e.signature = SnapshotSignature{sig.at("file").get<std::string>(), sig.at("key").get<std::string>(),
                                    sig.at("principal").is_string()
                                        ? std::optional<std::string>(sig.at("principal").get<std::string>())
                                        : std::nullopt};
  return e;
}

// f(document) or, when it wants it, f(document, the file's text).
template <typename T, typename F>
std::variant<T, std::string> guarded(const fs::path& file, F f) {
  try {
    std::string text = read_file(file);
    if constexpr (std::is_invocable_v<F, const json&, std::string&&>) return f(parse_object(text), std::move(text));
    else return f(parse_object(text));
  } catch (const std::exception& e) {
    return fmt::format("{}: {}", file.string(), e.what());
  }
}
}  // namespace

void read_measured_times(const json& j, RunRecord& r) {
  r.import_s = number_or_none(j, "import_s");
  r.setup_s = number_or_none(j, "setup_s");
  r.first_call_s = number_or_none(j, "first_call_s");
  r.second_call_s = number_or_none(j, "second_call_s");
  r.total_s = number_or_none(j, "total_s");
  r.calls_s.clear();
  for (const auto& x : array_or_empty(j, "calls_s"))
    if (x.is_number()) r.calls_s.push_back(x.get<double>());
  if (j.contains("ttfr_includes_import") && j["ttfr_includes_import"].is_boolean())
    r.ttfr_includes_import = j["ttfr_includes_import"].get<bool>();
}

std::variant<CaseResult, std::string> read_case(const fs::path& file) {
  return guarded<CaseResult>(file, [](const json& j, std::string&& text) {
    CaseResult r = read_case_document(j);
    r.recorded_json = std::move(text);
    return r;
  });
}

std::variant<EnvironmentInfo, std::string> read_environment(const fs::path& file) {
  return guarded<EnvironmentInfo>(file, [](const json& j) { return parse_environment(j); });
}

std::variant<NoiseFloor, std::string> read_noise(const fs::path& file) {
  return guarded<NoiseFloor>(file, [](const json& j) {
    NoiseFloor n;
    n.alpha = j.at("alpha").get<double>();
    n.run_a = j.at("runs").at(0).get<std::string>();
    n.run_b = j.at("runs").at(1).get<std::string>();
    n.command = j.at("command").get<std::vector<std::string>>();
    n.started_at = opt_str(j, "started_at");
    n.finished_at = opt_str(j, "finished_at");
    for (const auto& m : j.at("metrics")) {
      NoiseMetric x{m.at("case").get<std::string>(), m.at("metric").get<std::string>(), m.at("n_a").get<std::size_t>(),
                    m.at("n_b").get<std::size_t>(), m.at("median_a").get<double>(), m.at("median_b").get<double>(),
                    m.at("ratio").get<double>(), m.at("ratio_ci95").at(0).get<double>(),
                    m.at("ratio_ci95").at(1).get<double>(), m.at("p").get<double>(), m.at("testable").get<bool>(),
                    std::nullopt};
      if (m.at("detectable_pct").is_number()) x.detectable_pct = m.at("detectable_pct").get<double>();
      n.metrics.push_back(std::move(x));
    }
    return n;
  });
}

std::variant<RunIndex, std::string> read_index(const fs::path& file) {
  return guarded<RunIndex>(file, [](const json& j) {
    RunIndex x;
    x.jitbench_version = opt_str(j, "jitbench_version");
    x.cwd = opt_str(j, "cwd");
    for (const auto& in : j.value("inputs", json::array()))
      x.inputs.push_back({in.at("kind").get<std::string>(), in.at("source").get<std::string>(), inside_path(in.at("path")),
                          in.at("sha256").get<std::string>()});
    x.suite_name = j.at("suite").value("name", "");
    x.suite_source = j.at("suite").value("source", "");
    x.command = j.value("command", std::vector<std::string>{});
    x.complete = j.value("complete", false);
    x.started_at = opt_str(j, "started_at");
    x.finished_at = opt_str(j, "finished_at");
    for (const auto& c : j.at("cases"))
      x.cases.push_back({c.at("case").get<std::string>(), inside_path(c.at("path")), status_of(c),
                         c.contains("environment") ? inside_path(c.at("environment")) : std::string()});
    try {
      read_index_sections(j, x);
    } catch (const json::exception& e) {  // a section the schema check names; this says which part broke
      throw std::runtime_error(fmt::format("a section is not as jitbench writes it ({})", e.what()));
    }
    for (const auto& f : j.at("files"))
      x.files.push_back({inside_path(f.at("path")), f.at("sha256").get<std::string>(),
                         f.at("bytes").get<std::uintmax_t>()});
    return x;
  });
}

std::variant<std::vector<MlIndexEntry>, std::string> read_ml_index(const fs::path& file) {
  return guarded<std::vector<MlIndexEntry>>(file, [](const json& j) {
    std::vector<MlIndexEntry> out;
    for (const auto& c : j.at("cases")) out.push_back({inside_path(c.at("path")), c.value("sha256", "")});
    return out;
  });
}

std::variant<std::vector<RegistryEntry>, std::string> read_registry(const fs::path& file) {
  return guarded<std::vector<RegistryEntry>>(file, [](const json& j) {
    std::vector<RegistryEntry> out;
    for (const auto& s : j.at("snapshots")) out.push_back(read_registry_entry(s));
    return out;
  });
}

std::variant<LoadedRun, std::string> read_run(const fs::path& dir) {
  LoadedRun run;
  run.dir = dir;
  auto index = read_index(dir / "index.json");
  if (auto* e = std::get_if<std::string>(&index)) return *e;
  run.index = std::get<RunIndex>(std::move(index));
  auto env = read_environment(dir / "environment.json");
  if (auto* e = std::get_if<std::string>(&env)) return *e;
  run.environment = std::get<EnvironmentInfo>(std::move(env));
  for (const auto& c : run.index.cases) {
    if (crosses_link(dir, c.path))
      return fmt::format("{}: '{}' is missing or a symbolic link", (dir / "index.json").string(), c.path);
    auto r = read_case(dir / c.path);
    if (auto* e = std::get_if<std::string>(&r)) return *e;
    run.cases.push_back(std::get<CaseResult>(std::move(r)));
    run.cases.back().environment = c.environment;
  }
  return run;
}

}  // namespace jitbench
