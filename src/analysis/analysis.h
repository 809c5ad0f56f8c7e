#pragma once
// What the runs mean together: the first call's phases and their residual,
// the cache modes side by side, break-even against the eager baseline, and
// between- versus within-process variance. Pure functions over the results.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "results/model.h"
#include "stats/stats.h"

namespace jitbench {

inline constexpr const char* kAnalysisSchema = "jitbench.analysis.v1";
// Phases plus residual must match the measured first call within this fraction.
inline constexpr double kReconcileTolerance = 0.02;

struct PhaseBreakdown {
  std::vector<std::pair<std::string, double>> phases;  // in the framework's order
  double whole = 0;         // measured first_call_s
  double sum_phases = 0;
  double residual = 0;      // whole - sum_phases: dispatch + execution (+ cache load)
  bool reconciled = true;   // residual >= -tolerance * whole
  double discrepancy_pct = 0;  // how far the phases overshoot the whole, when they do
};
// From the worker's first_call report; nullopt when the run has no first call.
std::optional<PhaseBreakdown> phase_breakdown(const RunRecord& r);

struct BreakEven {
  std::string jit_case, eager_case;
  std::string verdict;  // "calls", "never", "immediately"
  std::optional<double> calls;      // N* when verdict == "calls"
  std::optional<double> ci_low, ci_high;  // bootstrap 95%; ci_high empty: "never" is inside the interval
  double ttfr_jit = 0, ttfr_eager = 0, warm_jit = 0, warm_eager = 0;  // medians used
};
// N* = (TTFR_jit - TTFR_eager) / (warm_eager - warm_jit). nullopt when any input is empty.
std::optional<BreakEven> break_even(std::span<const double> ttfr_jit, std::span<const double> ttfr_eager,
                                    std::span<const double> warm_jit, std::span<const double> warm_eager,
                                    int resamples = 2000, std::uint64_t seed = 0x6a6974);

// The eager baseline of a case in the same run: numpy, same workload, n, dtype
// and cache policy (or cold_cache when numpy has no such case).
const CaseResult* eager_baseline(const CaseResult& jit, const std::vector<CaseResult>& all);
bool is_jit_backend(const std::string& backend);

nlohmann::json analysis_json(const std::vector<CaseResult>& cases);
// Variants of one pair (catalog's WorkloadInfo::pair) side by side.
nlohmann::json pairs_json(const std::vector<CaseResult>& cases);
// mc_pi cases: |pi - estimate| against TTFR and warm time.
nlohmann::json accuracy_json(const std::vector<CaseResult>& cases);
nlohmann::json breakdown_json(const PhaseBreakdown& b);

}  // namespace jitbench
