#pragma once
// The per-metric views of the result model every analysis, export and
// comparison uses: one definition of "the values of a metric over a case".
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/model.h"

namespace jitbench {

// The cold-run metrics jitbench summarises, in report order.
const std::vector<std::string>& cold_metrics();
// A run whose timings are summarised: ok, or an interpreter-only run (whose case
// is warn / interpreter_only, which keeps it out of every comparison table).
bool has_timings(const RunRecord& r);
// One metric of one run ("ttfr_s", "import_s", ...; see cold_metrics()).
std::optional<double> metric(const RunRecord& r, const std::string& name);
// Values of one metric over the case's cold runs that have timings.
std::vector<double> cold_values(const CaseResult& r, const std::string& metric);
// The warm calls of every warm process with timings, pooled in order.
std::vector<double> warm_values(const CaseResult& r);
// The median warm call of each warm process with timings: one value per
// process, the unit `jitbench compare` tests warm calls on.
std::vector<double> warm_process_medians(const CaseResult& r);

// The first call split into the phases the framework reported and what no
// phase covers. The phases are measured (their sources are named in the
// worker's report); classify.cc has already failed any run whose phases add up
// to more than its first call, so unattributed is >= 0 up to the slack.
struct PhaseBreakdown {
  std::vector<std::pair<std::string, double>> phases;  // in the framework's order
  double whole = 0;         // measured first_call_s
  double sum_phases = 0;
  double unattributed = 0;  // whole - sum_phases: not measured by any phase (execution, dispatch, ...)
  double unattributed_share = 0;  // unattributed / whole
};
// From the worker's first_call report; nullopt when the run has no first call.
std::optional<PhaseBreakdown> phase_breakdown(const RunRecord& r);

}  // namespace jitbench
