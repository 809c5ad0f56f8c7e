#pragma once
// Turns what one worker process left behind (exit, messages) into a RunRecord
// with a status and reason: where a run's status is decided. Pure: tested
// without spawning anything.
#include <optional>
#include <string>

#include "config/names.h"
#include "results/model.h"
#include "run/protocol.h"
#include "run/subprocess.h"

namespace jitbench {
// What jitbench asked of one worker process: its report must answer exactly that.
struct RunRequest {
  RunMode mode = RunMode::Cold;
  int index = 0;
  double timeout_s = 300;
  WarmCallsAsked warm;  // the calls a warm run must report
  std::string dtype = "f32";
  Precision precision = Precision::Default;
  bool gpu = false;  // the backend's device, from the catalog
};
RunRecord classify_run(const ProcessResult& p, const RunRequest& req);

// The formats float32 (or float64) products can be computed in on this device
// at this precision (docs/precision.md): a claim outside them is impossible,
// and would loosen the tolerance the result is verified at. Empty when the
// claim is possible, else why not.
std::string precision_mismatch(const std::string& claimed, const RunRequest& req);

// Checks that a worker's own numbers could be true, each of which a lying
// worker fails: the first call's phases add up to no more than the first call;
// import + setup + the calls to no more than the worker's total; process start
// + that total to no more than jitbench's own spawn-to-exit wall clock.
// A one-line description of the first violation, or nullopt.
// (kTimingSlackS, kTimingSlackFraction: results/anatomy.h, where the reader applies them too)
std::optional<std::string> timing_inconsistency(const RunRecord& r);
}  // namespace jitbench

namespace jitbench {
// The cache claims of a run that classify_run found ok, judged by what jitbench
// itself saw of the case's cache directory (r.cache_seen) as much as by the
// framework's counters:
// - warm_cache (every cold run and warm process): ok only with a hit and no
//   miss in the framework's counters for the first call AND an entry that
//   existed before the run read, as jitbench's own inotify watch saw it; else
//   warn / cache_not_used, cache_partially_used, cache_evidence_conflict, or
//   cache_unverified (the framework counts no cache reads, or jitbench could
//   not watch).
// - cold_cache and warm_process: warn / cache_not_cold when the framework
//   counted a hit, an entry older than the run was read, the directory was not
//   empty at the start, something was written by a backend whose default
//   settings write no compile cache (`writes_cache_by_default`, catalog), or
//   the framework reports a cache directory outside the case's own.
void judge_cache_claims(RunRecord& r, CachePolicy policy, bool writes_cache_by_default);
}  // namespace jitbench
