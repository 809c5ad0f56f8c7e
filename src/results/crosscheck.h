#pragma once
// The cross-check of a case's event-based phases against its ahead-of-time
// run (a JAX function compiled through jit(f).trace().lower().compile() in a
// process of its own, each step on the worker's own clock): per step, the
// cold runs' median event time and the AOT process's timer. A step agrees when
// the two are within kCrosscheckFactor of each other or kCrosscheckAbsS apart;
// a case whose steps do not all agree is warn / crosscheck_disagrees, unless
// the disagreement came with interference (docs/noise.md): the AOT process was
// interfered with, or every cold run compared was. Then the case keeps its
// status, and the verdict keeps its figures and says interfered.
#include <optional>
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {

inline constexpr double kCrosscheckFactor = 2.0;
inline constexpr double kCrosscheckAbsS = 0.005;

struct CrosscheckStep {
  std::string step;
  double event_median_s = 0, aot_s = 0;
  bool agrees = false;
};
struct Crosscheck {
  Status status = Status::Ok;  // the AOT process's own
  Reason reason;
  std::optional<bool> agrees;  // nullopt: nothing to compare (or the run was not ok)
  // A disagreement that came with interference: the AOT process was interfered
  // with, or every cold run compared was. false when the steps agree.
  bool interfered = false;
  std::vector<CrosscheckStep> steps;
};
// nullopt when the case has no cross-check run.
std::optional<Crosscheck> crosscheck(const CaseResult& c);

// The warning a cross-check gives its case ({} when none): the steps
// disagree (crosscheck_disagrees), or the AOT process failed (crosscheck_failed).
// A skip (the function has no AOT path) is no warning.
std::optional<std::pair<Reason, std::string>> crosscheck_warning(const CaseResult& c);

}  // namespace jitbench
