#include "export/json/case_json.h"

#include "config/catalog.h"
#include "export/docs/case_names.h"
#include "export/json/anatomy_json.h"
#include "export/json/counts_json.h"
#include "export/json/json_util.h"
#include "results/crosscheck.h"
#include "export/json/schema.h"
#include "results/views.h"
#include "stats/sequential.h"
#include "util/json_get.h"

namespace jitbench {
using nlohmann::json;

namespace {
json breakdown_json(const PhaseBreakdown& b) {
  json phases = json::object();
  for (const auto& [n, v] : b.phases) phases[n] = v;
  return {{"phases", phases},
          {"sum_phases_s", b.sum_phases},
          {"unattributed_s", b.unattributed},
          {"unattributed_share", b.unattributed_share},
          {"first_call_s", b.whole}};
}

// A field of the first worker report, as the worker sent it.
json reported(const WorkerReport* w, const char* key, json absent) {
  return w && w->raw.contains(key) ? w->raw[key] : absent;
}

// A run's interference figures (docs/noise.md); null: not reported.
json interference_json(const std::optional<Interference>& x) {
  if (!x) return nullptr;
  return {{"other_cpu_s", x->other_cpu_s}, {"steal_s", x->steal_s},
          {"nivcsw", x->nivcsw},           {"worker_cpu_s", x->worker_cpu_s},
          {"wall_s", x->wall_s},           {"load_start", number_or_null(x->load_start)},
          {"load_end", number_or_null(x->load_end)}, {"n_cpus", x->n_cpus},
          {"interfered", x->interfered}};
}

json config_json(const CaseResult& r) {
  json j = {{"backend", r.c.backend},
          {"workload", r.c.workload},
          {"n", r.c.n},
          {"dtype", dtype_long(r.c.dtype)},
          {"cold_runs", r.cold_runs},
          {"warm_iters", r.warm_iters},
          {"warm_runs", r.warm_runs},
          {"cache_policy", to_string(r.c.cache_policy)},
          {"precision", to_string(r.c.precision)},
          {"timeout_s", r.timeout_s},
          {"deterministic", r.deterministic},
          {"seed", r.seed}};
  if (!r.c.env.empty()) j["environment"] = r.c.env;
  return j;
}

json inherited_json(const std::vector<InheritedSetting>& found) {
  json out = json::array();
  for (const auto& f : found) out.push_back({{"variable", f.variable}, {"value", f.value}, {"action", f.action}});
  return out;
}

json crosscheck_json(const CaseResult& r) {
  const auto x = crosscheck(r);
  if (!x) return nullptr;
  json steps = json::array();
  for (const auto& s : x->steps)
    steps.push_back({{"step", s.step}, {"event_median_s", s.event_median_s}, {"aot_s", s.aot_s}, {"agrees", s.agrees}});
  return {{"bound", {{"factor", kCrosscheckFactor}, {"abs_s", kCrosscheckAbsS}}},
          {"agrees", x->agrees ? json(*x->agrees) : json(nullptr)},
          {"interfered", x->interfered},
          {"steps", steps}};
}

// One side's sampling: how many runs, why no more, and the interval reached
// (order statistics, stats/sequential.h), recomputed from the runs.
json sampling_side(const std::vector<double>& values, const std::string& stopped) {
  const auto ci = stats::order_statistic_median_ci(values, stats::kReportConfidence);
  return {{"samples", values.size()},
          {"stopped", text_or_null(stopped)},
          {"interval", ci ? json{{"low", ci->low}, {"high", ci->high}} : json(nullptr)},
          {"half_width_pct", number_or_null(stats::half_width_pct(values, stats::kReportConfidence))}};
}

// The warm calls' bounds where a rule picks the count (--target-ci, or
// calibrated by time: min_time_s); null for a fixed count.
json warm_calls_json(const CaseResult& r) {
  const auto& s = r.sampling;
  if (!s.rule && !s.warm_min_time_s) return nullptr;
  json j = {{"min", s.warm_min_calls}, {"max", r.warm_iters}};
  if (s.warm_min_time_s) j["min_time_s"] = *s.warm_min_time_s;
  return j;
}

json sampling_json(const CaseResult& r) {
  const auto& s = r.sampling;
  const auto& rule = s.rule;
  return {{"rule", rule ? "target_ci" : "fixed"},
          {"target_ci_pct", rule ? json(rule->target_pct) : json(nullptr)},
          {"min_runs", rule ? json(rule->min_runs) : json(nullptr)},
          {"max_runs", rule ? json(rule->max_runs) : json(nullptr)},
          {"max_time_s", rule && rule->max_time_s ? json(*rule->max_time_s) : json(nullptr)},
          {"warm_calls", warm_calls_json(r)},
          {"stop_confidence", stats::kStopConfidence},
          {"report_confidence", stats::kReportConfidence},
          {"cold", sampling_side(cold_values(r, "ttfr_s"), s.cold_stopped)},
          {"warm", sampling_side(warm_process_medians(r), s.warm_stopped)}};
}

json warm_json(const CaseResult& r) {
  const auto calls = warm_values(r);
  json runs = json::array();
  for (const auto& run : r.warm) runs.push_back(run_json(run));
  return {{"run", r.warm.empty() ? json(nullptr) : runs[0]},
          {"runs", runs},
          {"calls_s", calls},
          {"process_medians_s", warm_process_medians(r)},
          {"summary", summary_json(calls)}};
}
}  // namespace

json run_json(const RunRecord& r) {
  json j = {{"mode", to_string(r.mode)},
            {"index", r.index},
            {"status", to_string(r.status)},
            {"reason", text_or_null(to_string(r.reason))},
            {"detail", text_or_null(r.detail)},
            {"process_start_s", number_or_null(r.process_start_s)},
            {"import_s", number_or_null(r.import_s)},
            {"setup_s", number_or_null(r.setup_s)},
            {"first_call_s", number_or_null(r.first_call_s)},
            {"total_s", number_or_null(r.total_s)},
            {"ttfr_s", number_or_null(r.ttfr_s())},
            {"process_ttfr_s", number_or_null(r.process_ttfr_s())},
            {"wall_s", r.wall_s},
            {"harness_gap_s", number_or_null(r.harness_gap_s())},
            {"exit", {{"kind", r.exit_kind}, {"code", r.exit_code}, {"signal", r.signal}}},
            {"rusage", {{"max_rss_kib", r.max_rss_kib}, {"user_s", r.user_s}, {"sys_s", r.sys_s}}},
            {"log", r.log}};
  if (r.pre_exec_rss_kib) j["rusage"]["pre_exec_rss_kib"] = *r.pre_exec_rss_kib;
  const auto workload = r.workload_peak_rss_kib();
  const auto process = r.process_peak_rss_kib();
  j["peak_rss"] = {{"workload_kib", number_or_null(workload)},
                   {"process_kib", process ? json(*process) : json(nullptr)},
                   {"source", workload ? "worker_hwm_after_calls" : "not_reported"}};
  j["ttfr_includes_import"] = r.ttfr_includes_import;
  j["interference"] = interference_json(r.interference);
  const auto& seen = r.cache_seen;
  j["cache_dir_files"] = {{"before", seen.files_before}, {"after", seen.files_after}};
  j["cache_dir_bytes"] = {{"before", seen.bytes_before}, {"after", seen.bytes_after}};
  j["cache_observed"] = {{"watched", seen.watched},         {"note", text_or_null(seen.note)},
                         {"files_before", seen.files_before}, {"bytes_before", seen.bytes_before},
                         {"files_after", seen.files_after},   {"bytes_after", seen.bytes_after},
                         {"entries_read", seen.entries_read}, {"added", seen.added},
                         {"modified", seen.modified},         {"removed", seen.removed}};
  auto b = phase_breakdown(r);
  j["first_call_breakdown"] = b ? breakdown_json(*b) : json(nullptr);
  if (r.mode == RunMode::Cold || r.mode == RunMode::Anatomy || r.mode == RunMode::Count)
    j["second_call_s"] = number_or_null(r.second_call_s);
  if (r.buckets) {
    const auto& h = *r.buckets;
    j["buckets"] = {{"interpreter_start_s", h.interpreter_start_s}, {"harness_import_s", h.harness_import_s},
                    {"harness_observe_s", h.harness_observe_s},     {"harness_verify_s", h.harness_verify_s},
                    {"harness_report_s", h.harness_report_s},       {"harness_exit_s", h.harness_exit_s},
                    {"worker_span_s", h.worker_span_s},             {"unattributed_s", h.unattributed_s}};
  }
  if (r.mode == RunMode::Warm) j["calls_s"] = r.calls_s;
  j["worker"] = r.worker.raw;
  if (r.counts) j["counts"] = run_counts_json(*r.counts);
  return j;
}

json case_json(const CaseResult& r) {
  json cold_runs = json::array();
  for (const auto& run : r.cold) cold_runs.push_back(run_json(run));
  json cold_summary = json::object();
  for (const auto& m : cold_metrics()) cold_summary[m] = summary_json(cold_values(r, m));

  const WorkerReport* report = r.first_worker_report();
  // A worker may send anything as "backend"; the case's own name goes into an object either way.
  json backend = report ? object_or_empty(report->raw, "backend") : json::object();
  backend["name"] = r.c.backend;
  json cache = {{"policy", to_string(r.c.cache_policy)}, {"dir", text_or_null(r.cache_dir)}};
  if (report && report->raw.contains("cache")) cache["settings"] = report->raw["cache"];

  json doc = {{"schema_version", kCaseSchema},
          {"case", r.c.id},
          {"status", to_string(r.status)},
          {"reason", text_or_null(to_string(r.reason))},
          {"detail", text_or_null(r.detail)},
          {"config", config_json(r)},
          {"backend", backend},
          {"device", reported(report, "device", nullptr)},
          {"cache", cache},
          {"verification", reported(report, "verify", nullptr)},
          {"precision", reported(report, "precision", nullptr)},
          {"workload", reported(report, "workload", nullptr)},
          {"worker_env", r.worker_env},
          {"inherited_cache_settings", inherited_json(r.inherited_cache_settings)},
          {"started_at", text_or_null(r.started_at)},
          {"finished_at", text_or_null(r.finished_at)},
          {"priming", r.priming ? run_json(*r.priming) : json(nullptr)},
          {"crosscheck", r.crosscheck ? run_json(*r.crosscheck) : json(nullptr)},
          {"crosscheck_verdict", crosscheck_json(r)},
          {"anatomy", anatomy_json(r)},
          {"cold", {{"runs", cold_runs}, {"summary", cold_summary}}},
          {"warm", warm_json(r)},
          {"sampling", sampling_json(r)}};
  // `jitbench measure`: the function as the user named it and what this case runs ("sgd_step with jax.jit").
  if (const auto& w = r.c.workload_info; w && w->measured)
    doc["measured"] = {{"function", w->measured->function}, {"source", w->measured->source}, {"label", backend_text(r.c)}};
  // run --count instructions: an optional addition (absent when not asked).
  if (r.count) doc["counts"] = counts_json(r);
  return doc;
}

std::vector<std::string> case_json_problems(const CaseResult& r) {
  // A number the JSON text cannot hold (NaN, infinity) is written as null and
  // shows up here as a null where the schema wants a number.
  return validate_against(nlohmann::json::parse(json_text(case_json(r))), kCaseSchema);
}

}  // namespace jitbench
