#pragma once
// Turns what one worker process left behind (exit, messages) into a RunRecord
// with a status and reason. Pure: tested without spawning anything.
#include "results/model.h"
#include "run/subprocess.h"

#include <optional>
#include <string>

namespace jitbench {
RunRecord interpret_run(const ProcessResult& p, const std::string& mode, int index, double timeout_s);

// Checks that a worker's own numbers could be true, each of which a lying
// worker fails: the first call's phases add up to no more than the first call;
// import + setup + the calls to no more than the worker's total; process start
// + that total to no more than jitbench's own spawn-to-exit wall clock.
// A one-line description of the first violation, or nullopt.
inline constexpr double kTimingSlackS = 100e-6;
inline constexpr double kTimingSlackFraction = 0.005;
std::optional<std::string> timing_inconsistency(const RunRecord& r);
}  // namespace jitbench
