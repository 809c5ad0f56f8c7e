#pragma once
// What the runs mean together: the first call's phases and what they leave
// unattributed, the cache modes side by side with their evidence, break-even
// against the eager baseline, and between- versus within-process variance.
// Pure functions over the results.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "results/model.h"
#include "stats/stats.h"

namespace jitbench {

inline constexpr const char* kAnalysisSchema = "jitbench.analysis.v2";

// The first call split into the phases the framework reported and what no
// phase covers. The phases are measured (their sources are named in the
// worker's report); interpret.cc has already failed any run whose phases add
// up to more than its first call, so unattributed is >= 0 up to the slack.
struct PhaseBreakdown {
  std::vector<std::pair<std::string, double>> phases;  // in the framework's order
  double whole = 0;         // measured first_call_s
  double sum_phases = 0;
  double unattributed = 0;  // whole - sum_phases: not measured by any phase (execution, dispatch, ...)
  double unattributed_share = 0;  // unattributed / whole
};
// From the worker's first_call report; nullopt when the run has no first call.
std::optional<PhaseBreakdown> phase_breakdown(const RunRecord& r);

struct BreakEven {
  std::string jit_case, eager_case;
  std::string baseline_kind;  // "same_framework" or "numpy"
  std::string baseline_note;  // why NumPy was used when the framework's own baseline was wanted
  std::string verdict;  // "calls", "never", "immediately"
  std::optional<double> calls;      // N* when verdict == "calls"
  std::optional<double> ci_low, ci_high;  // bootstrap 95%; ci_high empty: "never" is inside the interval
  double ttfr_jit = 0, ttfr_eager = 0, warm_jit = 0, warm_eager = 0;  // medians used
};
// N* = (TTFR_jit - TTFR_eager) / (warm_eager - warm_jit). nullopt when any input is empty.
std::optional<BreakEven> break_even(std::span<const double> ttfr_jit, std::span<const double> ttfr_eager,
                                    std::span<const double> warm_jit, std::span<const double> warm_eager,
                                    int resamples = 2000, std::uint64_t seed = 0x6a6974);

// The eager baseline of a JIT case in the same run: the same framework without
// its JIT on the same device (catalog's BackendInfo::baseline: jax_eager_gpu for
// jax_jit_gpu, torch_eager_gpu for torch_compile_gpu...) when the run has an ok
// case of it, else NumPy -- same workload, n, dtype and precision, same cache
// policy or else cold_cache. `note` says why NumPy stood in; never silent.
struct Baseline {
  const CaseResult* c = nullptr;
  std::string kind;  // "same_framework" | "numpy"
  std::string note;
};
Baseline eager_baseline(const CaseResult& jit, const std::vector<CaseResult>& all);
bool is_jit_backend(const std::string& backend);

nlohmann::json analysis_json(const std::vector<CaseResult>& cases);
// Variants of one pair (catalog's WorkloadInfo::pair) side by side.
nlohmann::json pairs_json(const std::vector<CaseResult>& cases);
// mc_pi cases: |pi - estimate| against TTFR and warm time.
nlohmann::json accuracy_json(const std::vector<CaseResult>& cases);
nlohmann::json breakdown_json(const PhaseBreakdown& b);

// The cross-check of a case's event-based phases against its ahead-of-time
// run: per step, the cold runs' median event time and the AOT process's own
// timer; a step agrees when the two are within kCrosscheckFactor of each
// other or kCrosscheckAbsS apart. null when the case has no cross-check run.
inline constexpr double kCrosscheckFactor = 2.0;
inline constexpr double kCrosscheckAbsS = 0.005;
nlohmann::json crosscheck_json(const CaseResult& c);

}  // namespace jitbench
