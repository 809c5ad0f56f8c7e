#pragma once
// CaseResult -> jitbench.case.v2 JSON, and the per-metric views every report uses.
#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {

inline constexpr const char* kCaseSchema = "jitbench.case.v2";
inline constexpr const char* kIndexSchema = "jitbench.index.v1";
inline constexpr const char* kEnvironmentSchema = "jitbench.environment.v1";

// The cold-run metrics jitbench summarises, in report order.
const std::vector<std::string>& cold_metrics();
// A run whose timings are summarised: ok, or an interpreter-only run (whose case
// is warn / interpreter_only, which keeps it out of every comparison table).
inline bool has_timings(const RunRecord& r) {
  return r.status == Status::Ok || (r.status == Status::Warn && r.reason == "interpreter_only");
}
// Values of one metric over the case's cold runs that have timings ("ttfr_s", "import_s", ...).
std::vector<double> cold_values(const CaseResult& r, const std::string& metric);
// The warm calls of every warm process with timings, pooled in order.
std::vector<double> warm_values(const CaseResult& r);
// The median warm call of each warm process with timings: one value per
// process, the unit `jitbench compare` tests warm calls on.
std::vector<double> warm_process_medians(const CaseResult& r);

// A number, or JSON null when absent; and the median of xs the same way.
nlohmann::json number_or_null(const std::optional<double>& v);
nlohmann::json median_or_null(std::span<const double> xs);

// {n, min, median, p95, max, mean, stdev, cv, mad, median_ci95:[lo,hi], n_outliers} or null.
nlohmann::json summary_json(std::span<const double> xs);
nlohmann::json run_to_json(const RunRecord& r);
nlohmann::json case_to_json(const CaseResult& r);

}  // namespace jitbench
