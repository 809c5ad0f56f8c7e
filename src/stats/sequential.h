#pragma once
// Sampling until the median is known well enough (`jitbench run --target-ci`).
//
// The interval is distribution-free: the median lies between the k-th smallest
// and the k-th largest of n independent samples with probability
// 1 - 2 P(Binomial(n, 1/2) <= k - 1), whatever the distribution (no normality,
// no bootstrap). Looking after every sample and stopping the first time the
// interval is narrow biases that probability down (a lucky cluster stops
// early), so the rule stops on the wider 99% interval and reports the 95% one:
// the reported interval keeps its 95% under repeated looks (sequential_test.cc
// simulates it; docs/results-sampling.md).
#include <optional>
#include <span>
#include <string_view>

#include "stats/stats.h"

namespace jitbench::stats {

// The order-statistic interval of the median at this confidence; nullopt when
// n is too small for any (n < 6 at 95%, n < 8 at 99%).
std::optional<Interval> order_statistic_median_ci(std::span<const double> xs, double confidence);
// Whether n values give that interval at all: the one rule every table follows
// before it prints an interval (fewer values: their count and range instead).
bool median_interval_possible(std::size_t n, double confidence);
// The smallest such n (6 at 95%): what the tables say they need.
std::size_t min_values_for_interval(double confidence);

// The largest distance from the median to an end of the interval, as a
// percentage of the median; nullopt without an interval or with a median of 0.
std::optional<double> half_width_pct(std::span<const double> xs, double confidence);

inline constexpr double kStopConfidence = 0.99;    // what the rule stops on
inline constexpr double kReportConfidence = 0.95;  // what the case file reports

enum class StopReason { Continue, TargetReached, MaxRuns, MaxTime };
std::string_view to_string(StopReason r);

struct StoppingRule {
  double target_pct = 5;  // the 95% interval within +-target_pct % of the median
  int min_runs = 5;
  int max_runs = 30;
  std::optional<double> max_time_s;  // sampling time of one side of a case, checked between runs, after min_runs
};

// Whether to stop after these samples, spent_s seconds into the case. The
// target is reached when the 99% interval is within +-target_pct % (so the
// reported 95% one is too).
StopReason should_stop(const StoppingRule& rule, std::span<const double> xs, double spent_s);

}  // namespace jitbench::stats
