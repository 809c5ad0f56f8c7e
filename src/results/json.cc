#include "results/json.h"

#include <functional>
#include <map>

#include "analysis/analysis.h"
#include "config/catalog.h"
#include "stats/stats.h"

namespace jitbench {
namespace {
using nlohmann::json;

json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

using Getter = std::function<std::optional<double>(const RunRecord&)>;
const std::map<std::string, Getter>& getters() {
  static const std::map<std::string, Getter> g = {
      {"process_start_s", [](const RunRecord& r) { return r.process_start_s; }},
      {"import_s", [](const RunRecord& r) { return r.import_s; }},
      {"setup_s", [](const RunRecord& r) { return r.setup_s; }},
      {"first_call_s", [](const RunRecord& r) { return r.first_call_s; }},
      {"second_call_s", [](const RunRecord& r) { return r.second_call_s; }},
      {"total_s", [](const RunRecord& r) { return r.total_s; }},
      {"ttfr_s", [](const RunRecord& r) { return r.ttfr_s(); }},
      {"process_ttfr_s", [](const RunRecord& r) { return r.process_ttfr_s(); }},
      {"wall_s", [](const RunRecord& r) { return std::optional<double>(r.wall_s); }},
      {"harness_gap_s", [](const RunRecord& r) { return r.harness_gap_s(); }},
      {"max_rss_kib", [](const RunRecord& r) { return std::optional<double>(static_cast<double>(r.max_rss_kib)); }},
  };
  return g;
}
}  // namespace

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json median_or_null(std::span<const double> xs) { return number_or_null(stats::median(xs)); }

const std::vector<std::string>& cold_metrics() {
  static const std::vector<std::string> m = {"process_start_s", "import_s", "setup_s", "first_call_s",
                                             "second_call_s",   "total_s",  "ttfr_s",  "process_ttfr_s",
                                             "wall_s",          "harness_gap_s",  "max_rss_kib"};
  return m;
}

std::vector<double> cold_values(const CaseResult& r, const std::string& metric) {
  std::vector<double> out;
  const auto& get = getters().at(metric);
  for (const auto& run : r.cold)
    if (has_timings(run))
      if (auto v = get(run)) out.push_back(*v);
  return out;
}

std::vector<double> warm_values(const CaseResult& r) {
  std::vector<double> out;
  for (const auto& run : r.warm)
    if (has_timings(run)) out.insert(out.end(), run.calls_s.begin(), run.calls_s.end());
  return out;
}

std::vector<double> warm_process_medians(const CaseResult& r) {
  std::vector<double> out;
  for (const auto& run : r.warm)
    if (has_timings(run))
      if (auto m = stats::median(run.calls_s)) out.push_back(*m);
  return out;
}

json summary_json(std::span<const double> xs) {
  auto s = stats::summarize(xs);
  if (!s) return nullptr;
  return {{"n", s->n},
          {"min", s->min},
          {"median", s->median},
          {"p95", s->p95},
          {"max", s->max},
          {"mean", s->mean},
          {"stdev", number_or_null(s->stdev)},
          {"cv", number_or_null(s->cv)},
          {"mad", s->mad},
          {"median_ci95", {s->median_ci95.low, s->median_ci95.high}},
          {"n_outliers", s->n_outliers}};
}

json run_to_json(const RunRecord& r) {
  json j = {{"mode", r.mode},
            {"index", r.index},
            {"status", to_string(r.status)},
            {"reason", text_or_null(r.reason)},
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
  j["ttfr_includes_import"] = r.ttfr_includes_import;
  j["cache_dir_files"] = {{"before", r.cache_files_before}, {"after", r.cache_files_after}};
  j["cache_dir_bytes"] = {{"before", r.cache_bytes_before}, {"after", r.cache_bytes_after}};
  auto b = phase_breakdown(r);
  j["first_call_breakdown"] = b ? breakdown_json(*b) : json(nullptr);
  if (r.mode == "cold") j["second_call_s"] = number_or_null(r.second_call_s);
  if (r.mode == "warm") j["calls_s"] = r.calls_s;
  j["worker"] = r.worker.is_null() ? json::object() : r.worker;
  return j;
}

json case_to_json(const CaseResult& r) {
  json cold_runs = json::array();
  for (const auto& run : r.cold) cold_runs.push_back(run_to_json(run));
  json cold_summary = json::object();
  for (const auto& m : cold_metrics()) {
    auto v = cold_values(r, m);
    cold_summary[m] = summary_json(v);
  }
  const auto calls = warm_values(r);
  json warm_runs = json::array();
  for (const auto& run : r.warm) warm_runs.push_back(run_to_json(run));

  const json* report = r.first_worker_report();
  json backend = report && report->contains("backend") ? (*report)["backend"] : json::object();
  backend["name"] = r.c.backend;
  json device = report && report->contains("device") ? (*report)["device"] : json(nullptr);

  json cache = {{"policy", r.c.cache_policy}, {"dir", text_or_null(r.cache_dir)}};
  if (report && report->contains("cache")) cache["settings"] = (*report)["cache"];

  return {{"schema_version", kCaseSchema},
          {"case", r.c.id},
          {"status", to_string(r.status)},
          {"reason", text_or_null(r.reason)},
          {"detail", text_or_null(r.detail)},
          {"config",
           {{"backend", r.c.backend},
            {"workload", r.c.workload},
            {"n", r.c.n},
            {"dtype", dtype_long(r.c.dtype)},
            {"cold_runs", r.cold_runs},
            {"warm_iters", r.warm_iters},
            {"warm_runs", r.warm_runs},
            {"cache_policy", r.c.cache_policy},
            {"precision", r.c.precision},
            {"timeout_s", r.timeout_s},
            {"deterministic", r.deterministic},
            {"seed", r.seed}}},
          {"backend", backend},
          {"device", device},
          {"cache", cache},
          {"verification", report && report->contains("verify") ? (*report)["verify"] : json(nullptr)},
          {"precision", report && report->contains("precision") ? (*report)["precision"] : json(nullptr)},
          {"workload", report && report->contains("workload") ? (*report)["workload"] : json(nullptr)},
          {"worker_env", r.worker_env},
          {"started_at", text_or_null(r.started_at)},
          {"finished_at", text_or_null(r.finished_at)},
          {"priming", r.priming ? run_to_json(*r.priming) : json(nullptr)},
          {"crosscheck", r.crosscheck ? run_to_json(*r.crosscheck) : json(nullptr)},
          {"cold", {{"runs", cold_runs}, {"summary", cold_summary}}},
          {"warm",
           {{"run", r.warm.empty() ? json(nullptr) : warm_runs[0]},
            {"runs", warm_runs},
            {"calls_s", calls},
            {"process_medians_s", warm_process_medians(r)},
            {"summary", summary_json(calls)}}}};
}

}  // namespace jitbench
