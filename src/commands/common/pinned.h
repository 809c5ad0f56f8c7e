#pragma once
// Whether measuring BASE again here measures the code BASE measured: the
// condition under which `compare --fail-on-regression` re-measures a row
// before failing it (docs/report-and-compare.md, "Re-measuring before
// failing"). A re-measured BASE is sound only where its code is pinned:
//   - a built-in workload: jitbench's own, at the version BASE recorded;
//   - a user workload or a `measure` target: the copies the run kept
//     (index inputs) still have their sha256, and every module of the user's
//     own that BASE's processes loaded (each process's local_modules) still
//     has the sha256 it had then;
// and only where each side runs with the packages it recorded: a pinned
// `--env` environment (rebuilt from its recorded spec) or an interpreter
// with the same Python and packages, every installed distribution where the
// run listed them (a run of user code that did not cannot be held to them),
// checked on the re-measured sides. Not the hardware: both sides are measured
// again on this machine.
#include <optional>
#include <string>
#include <vector>

#include "results/read.h"

namespace jitbench {

// nullopt when BASE's cases `case_ids` can be measured again as they were;
// else why not, as the clause after "cannot re-measure BASE: ".
std::optional<std::string> why_base_code_not_pinned(const LoadedRun& base, const std::vector<std::string>& case_ids);
// The same for any side (`side`: "BASE" or "NEW", in the clause): NEW is
// measured again too, and must be measured with the code NEW measured.
std::optional<std::string> why_code_not_pinned(const LoadedRun& run, const std::vector<std::string>& case_ids,
                                               const char* side);

// After a re-measurement: nullopt when each re-measured side ran with the
// Python, packages and jitbench its original run recorded, for the cases not
// in a pinned environment; else the first difference, as a clause.
std::optional<std::string> why_environment_changed(const LoadedRun& base, const LoadedRun& base_again,
                                                   const LoadedRun& next, const LoadedRun& next_again);

}  // namespace jitbench
