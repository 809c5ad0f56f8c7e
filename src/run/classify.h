#pragma once
// Turns what one worker process left behind (exit, messages) into a RunRecord
// with a status and reason: where a run's status is decided. Pure: tested
// without spawning anything.
#include <optional>
#include <string>

#include "config/names.h"
#include "results/model.h"
#include "run/subprocess.h"

namespace jitbench {
RunRecord classify_run(const ProcessResult& p, RunMode mode, int index, double timeout_s);

// Checks that a worker's own numbers could be true, each of which a lying
// worker fails: the first call's phases add up to no more than the first call;
// import + setup + the calls to no more than the worker's total; process start
// + that total to no more than jitbench's own spawn-to-exit wall clock.
// A one-line description of the first violation, or nullopt.
inline constexpr double kTimingSlackS = 100e-6;
inline constexpr double kTimingSlackFraction = 0.005;
std::optional<std::string> timing_inconsistency(const RunRecord& r);
}  // namespace jitbench

namespace jitbench {
// The cache claims of a run that classify_run found ok, by the case's policy:
// warm_cache, every cold run and warm process: ok only when the framework's own
// counters show a hit and no miss for the first call, and the kernel (when it
// could watch) saw a cache entry read; else warn / cache_not_used,
// cache_partially_used, cache_evidence_conflict or cache_unverified (the
// framework reports no cache reads). cold_cache and warm_process: warn /
// cache_not_cold when the run read cache entries that existed before it.
void judge_cache_claims(RunRecord& r, CachePolicy policy);
}  // namespace jitbench
