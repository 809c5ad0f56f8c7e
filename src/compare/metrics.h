#pragma once
// The metrics compare, bisect, the releases table, the publish site and the
// pytest plugin judge, and how each is judged: one registry, so that every
// gate decides alike (docs/noise.md, "Instructions").
//
//   Time and memory (cold_ttfr_s, phase_<name>_s, warm_call_s, peak_rss_kib):
//     noisy samples, one per process. The ratio of medians with its bootstrap
//     95% CI and the two-sided Mann-Whitney test at alpha.
//   Instructions (instructions_<phase>: run --count instructions):
//     near-deterministic. The ratio of medians with the processes' spread as
//     its interval: each side's range (min..max), or from kSpreadMedianRuns
//     processes a side the distribution-free 95% interval of its median,
//     which leaves out the side's most extreme processes; the interval of the
//     ratio is NEW's low over BASE's high to NEW's high over BASE's low. The
//     gate needs no test: two processes a side suffice where the spread is
//     small. The verdict "more/fewer instructions" also asks Lord's range
//     test (|difference of means| / sum of ranges beyond its 5% value), since
//     two processes a side of unchanged code fail to overlap one time in
//     three; else "within spread".
#include <cstddef>
#include <string>
#include <string_view>

namespace jitbench::compare {

struct MetricRow;

enum class MetricKind { Time, Memory, Instructions };
enum class MetricRule { MannWhitney, Spread };

struct MetricInfo {
  MetricKind kind = MetricKind::Time;
  MetricRule rule = MetricRule::MannWhitney;
  const char* more = "slower";  // the verdict when NEW's median is the larger, significantly
  const char* less = "faster";
  const char* unit = "s";       // "s", "KiB", "instructions"
};
MetricInfo metric_info(std::string_view metric);
std::string_view to_string(MetricRule r);  // "mann_whitney", "spread"

// An instruction metric's name ("instructions_first_call") and back ("" when it is none).
std::string instructions_metric(const std::string& phase);
std::string instructions_phase(std::string_view metric);

// Counting processes a side from which the spread rule takes the median's 95%
// interval instead of the range (the Sampling rule's order statistics: from 9
// on it leaves out each side's most extreme process).
inline constexpr std::size_t kSpreadMedianRuns = 9;
// Processes a side the spread rule needs at all.
inline constexpr std::size_t kSpreadMinRuns = 2;

// How a row decides against a regression limit (1 + PCT/100), for compare
// --fail-on-regression, bisect and the releases table alike: a regression
// when the whole interval lies above the limit (time: and p < alpha); clear
// when it was testable and the interval ends at or below the limit; else
// undecided.
enum class Gate { Regression, Clear, Undecided };
Gate gate(const MetricRow& r, double limit, double alpha);

}  // namespace jitbench::compare
