#pragma once
// The one range for every number a user or a suite gives jitbench: the CLI and
// the suite reader check against these before any value is used, so nothing
// is cut to a narrower type or overflows a deadline.
#include <cmath>
#include <cstddef>

namespace jitbench::limits {
inline constexpr long kMaxColdRuns = 100'000;
inline constexpr long kMaxWarmRuns = 100'000;
inline constexpr long kMaxWarmIters = 100'000'000;
// --target-ci: an interval of fewer samples means nothing; the target is a
// percentage of the median, more than 0 and at most 100.
inline constexpr long kMinTargetRuns = 5;
inline constexpr double kMaxTargetCiPct = 100;
inline constexpr double kMaxTimeoutS = 7 * 24 * 3600.0;  // a week: far past any case, far inside 64-bit ns
inline constexpr long kMaxSize = 9'007'199'254'740'991;  // 2^53 - 1: exact in every JSON reader
// Cases in one plan: far past any suite a machine can measure (a million cases
// of a second each is eleven days), far below what the plan's own memory and
// plan.json could hold.
inline constexpr long kMaxCases = 1'000'000;
// A case id names files (cases/ID.json, logs/ID/, cache/ID/, and the longest,
// the shared reference's staging file ..ID.pickle.tmp.tmp: ID + 17 bytes)
// that a file system's 255-byte name limit must hold: checked when the plan
// is made, before any process runs.
inline constexpr std::size_t kMaxCaseIdBytes = 200;

// A timeout jitbench can honour: finite, > 0, at most kMaxTimeoutS.
inline bool valid_timeout(double s) { return std::isfinite(s) && s > 0 && s <= kMaxTimeoutS; }
}  // namespace jitbench::limits
