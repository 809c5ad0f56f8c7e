#include "results/views.h"

#include <algorithm>

#include "stats/stats.h"

namespace jitbench {

const std::vector<std::string>& cold_metrics() {
  static const std::vector<std::string> m = {"process_start_s", "import_s", "setup_s", "first_call_s",
                                             "second_call_s",   "total_s",  "ttfr_s",  "process_ttfr_s",
                                             "wall_s",          "harness_gap_s",  "max_rss_kib",
                                             "peak_rss_kib"};
  return m;
}

bool has_timings(const RunRecord& r) {
  return r.status == Status::Ok || (r.status == Status::Warn && r.reason.code == ReasonCode::InterpreterOnly);
}

std::optional<double> metric(const RunRecord& r, const std::string& name) {
  if (name == "process_start_s") return r.process_start_s;
  if (name == "import_s") return r.import_s;
  if (name == "setup_s") return r.setup_s;
  if (name == "first_call_s") return r.first_call_s;
  if (name == "second_call_s") return r.second_call_s;
  if (name == "total_s") return r.total_s;
  if (name == "ttfr_s") return r.ttfr_s();
  if (name == "process_ttfr_s") return r.process_ttfr_s();
  if (name == "wall_s") return r.wall_s;
  if (name == "harness_gap_s") return r.harness_gap_s();
  if (name == "max_rss_kib") {  // the whole process's (wait4)
    if (const auto peak = r.process_peak_rss_kib()) return static_cast<double>(*peak);
    return std::nullopt;
  }
  if (name == "peak_rss_kib") return r.workload_peak_rss_kib();  // the workload's
  return std::nullopt;
}

std::vector<double> cold_values(const CaseResult& r, const std::string& name) {
  std::vector<double> out;
  for (const auto& run : r.cold)
    if (has_timings(run)) {
      if (auto v = metric(run, name)) out.push_back(*v);
      // The peaks, all or none: the rest of a case whose runs were partly
      // jitbench's copy, or partly unreported, would be a censored sample.
      else if (name == "max_rss_kib" || name == "peak_rss_kib") return {};
    }
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

std::optional<PhaseBreakdown> phase_breakdown(const RunRecord& r) {
  if (!r.first_call_s || !r.worker.has_first_call) return std::nullopt;
  PhaseBreakdown b;
  b.whole = *r.first_call_s;
  b.phases = r.worker.phases;
  for (const auto& [n, v] : b.phases) b.sum_phases += v;
  b.unattributed = std::max(b.whole - b.sum_phases, 0.0);
  b.unattributed_share = b.whole > 0 ? b.unattributed / b.whole : 0.0;
  return b;
}

}  // namespace jitbench
