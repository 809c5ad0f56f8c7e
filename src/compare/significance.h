#pragma once
// Two-sample statistics for `jitbench compare`: Mann-Whitney U (exact for
// small samples without ties, normal approximation with tie correction
// otherwise), the Hodges-Lehmann shift, and a bootstrap CI of the ratio of
// medians. Pure functions, unit-tested.
#include <cstdint>
#include <optional>
#include <span>

namespace jitbench::compare {

struct MannWhitney {
  double u = 0;        // U of the first sample
  double p_value = 1;  // two-sided
  bool exact = false;
};
std::optional<MannWhitney> mann_whitney(std::span<const double> a, std::span<const double> b);

// The smallest two-sided p-value the exact test can give with these sizes:
// 2 / C(n1 + n2, n1). Above alpha, no difference can ever be significant.
double min_possible_p(std::size_t n1, std::size_t n2);

// Median of all pairwise differences b_j - a_i (positive: b is larger).
std::optional<double> hodges_lehmann(std::span<const double> a, std::span<const double> b);

struct RatioCi {
  double ratio = 0, lo = 0, hi = 0;  // median(b) / median(a) and its 95% percentile bootstrap CI
};
std::optional<RatioCi> ratio_of_medians(std::span<const double> a, std::span<const double> b,
                                        int resamples = 2000, std::uint64_t seed = 0x636d70);

// The gate of --fail-on-regression: the difference is significant (the test
// could reach alpha with these sizes and p < alpha) and the whole 95% CI of
// the NEW/BASE ratio lies above `limit` (1 + PCT/100), so that the regression
// is larger than PCT with confidence, not only in its point estimate. Two runs
// of the same code drift by 10-20% in a few metrics between runs on a busy
// machine; a point estimate above the limit with p < 0.05 is one of about
// alpha x (metrics tested) that will happen by chance.
bool exceeds_regression_limit(bool testable, double p, double alpha, double ratio_ci_low, double limit);

}  // namespace jitbench::compare
