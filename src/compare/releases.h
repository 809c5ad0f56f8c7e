#pragma once
// The same case measured in several environments (a run across releases):
// per metric, each environment's median with its interval, and the step from
// the environment before it in the order given — the NEW/BASE ratio of
// medians with its bootstrap 95% CI and the Mann-Whitney verdict, exactly as
// `jitbench compare` computes them (one sample per process).
#include <optional>
#include <string>
#include <vector>

#include "compare/anatomy_delta.h"
#include "compare/compare.h"

namespace jitbench::compare {

// The metrics a releases table shows, in order: import, each compile phase
// the cases report, first call, TTFR, warm call.
std::vector<std::string> release_metrics(const std::vector<const CaseResult*>& cases);

struct ReleaseEntry {
  const CaseResult* c = nullptr;
  std::string env;
  // metric -> {median, ci low, ci high} over the environment's processes; absent: not measured
  std::map<std::string, std::array<double, 3>> values;
  std::map<std::string, MetricRow> step;  // metric -> against the previous environment (none for the first)
  // The compile's sub-phases that moved most from the previous comparable
  // environment, where both took an anatomy (run --anatomy); else empty.
  std::vector<SubPhaseDelta> anatomy_step;
};

struct ReleaseRow {
  std::string key;  // the case id without its environment
  std::vector<std::string> metrics;
  std::vector<ReleaseEntry> entries;  // in the environments' order
};

// One row per case id measured in two or more environments; cases whose times
// are not comparable (failed, warn for anything but the phase split) appear
// without values, so a release that broke the case shows as such.
// The significance level of a release step's test (summary.md prints it).
inline constexpr double kReleaseAlpha = 0.05;
std::vector<ReleaseRow> release_rows(const std::vector<CaseResult>& cases, double alpha = kReleaseAlpha);

}  // namespace jitbench::compare
