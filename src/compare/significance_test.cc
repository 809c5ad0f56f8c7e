#include "compare/significance.h"

#include <gtest/gtest.h>

#include <vector>

namespace jitbench::compare {
namespace {

TEST(MannWhitney, CompletelySeparatedSamplesGiveTheExactMinimum) {
  const std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  const auto r = mann_whitney(a, b);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->exact);
  EXPECT_DOUBLE_EQ(r->u, 0);
  EXPECT_NEAR(r->p_value, 2.0 / 20.0, 1e-12);  // 2 / C(6, 3)
  EXPECT_NEAR(min_possible_p(3, 3), 0.1, 1e-12);
  EXPECT_LT(min_possible_p(5, 5), 0.05);  // 2/252: five runs each can reach p < 0.05
}

TEST(MannWhitney, ExactMatchesTheTableForFiveAndFive) {
  // n1 = n2 = 5, U = 4: P(U <= 4) = 12/252 (published tables), two-sided 24/252.
  const std::vector<double> a{1, 2, 3, 6, 7}, b{4, 5, 8, 9, 10};
  const auto r = mann_whitney(a, b);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->u, 4);  // ranks of a: 1+2+3+6+7 = 19; U = 19 - 15
  EXPECT_NEAR(r->p_value, 24.0 / 252.0, 1e-12);
}

TEST(MannWhitney, IdenticalSamplesShowNoDifference) {
  const std::vector<double> a{1, 1, 1, 1}, b{1, 1, 1, 1};
  const auto r = mann_whitney(a, b);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->exact);  // ties: normal approximation
  EXPECT_DOUBLE_EQ(r->p_value, 1.0);
  EXPECT_FALSE(mann_whitney(std::vector<double>{}, b));
}

TEST(HodgesLehmann, MedianOfPairwiseDifferences) {
  EXPECT_DOUBLE_EQ(*hodges_lehmann(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}), 3.0);
  EXPECT_DOUBLE_EQ(*hodges_lehmann(std::vector<double>{5}, std::vector<double>{2}), -3.0);
}

TEST(RatioOfMedians, PointEstimateInsideItsInterval) {
  const std::vector<double> a{1.0, 1.1, 0.9, 1.0, 1.05}, b{2.0, 2.2, 1.8, 2.0, 2.1};
  const auto r = ratio_of_medians(a, b);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->ratio, 2.0);
  EXPECT_LE(r->lo, r->ratio);
  EXPECT_GE(r->hi, r->ratio);
  EXPECT_GT(r->lo, 1.0);
}

TEST(RegressionGate, NeedsSignificanceAndTheWholeIntervalAboveTheLimit) {
  // The same-code comparison in docs/report-and-compare.md: p = 0.032, ratio
  // 1.15, CI [1.010, 1.255] -> not a regression above 10%.
  EXPECT_FALSE(exceeds_regression_limit(true, 0.0317, 0.05, 1.010, 1.10));
  EXPECT_TRUE(exceeds_regression_limit(true, 0.0079, 0.05, 1.12, 1.10));
  EXPECT_FALSE(exceeds_regression_limit(true, 0.08, 0.05, 1.50, 1.10));   // not significant
  EXPECT_FALSE(exceeds_regression_limit(false, 0.0, 0.05, 9.0, 1.10));    // too few runs to test
}

TEST(RegressionGate, ASlowedSampleIsFlagged) {
  const std::vector<double> base{1.0, 1.1, 0.9, 1.0, 1.05}, slow{2.0, 2.2, 1.8, 2.0, 2.1};
  const auto mw = mann_whitney(base, slow);
  const auto r = ratio_of_medians(base, slow);
  ASSERT_TRUE(mw && r);
  EXPECT_TRUE(exceeds_regression_limit(min_possible_p(5, 5) <= 0.05, mw->p_value, 0.05, r->lo, 1.10));
  const auto same = mann_whitney(base, base);
  const auto rs = ratio_of_medians(base, base);
  ASSERT_TRUE(same && rs);
  EXPECT_FALSE(exceeds_regression_limit(true, same->p_value, 0.05, rs->lo, 1.10));
}

}  // namespace
}  // namespace jitbench::compare
