#include "stats/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace jitbench::stats {
namespace {

TEST(Percentile, EmptyHasNone) {
  std::vector<double> v;
  EXPECT_FALSE(percentile(v, 50).has_value());
  EXPECT_FALSE(median(v).has_value());
  EXPECT_FALSE(summarize(v).has_value());
}

TEST(Percentile, SingleValueIsThatValue) {
  std::vector<double> v{4.5};
  EXPECT_DOUBLE_EQ(*percentile(v, 0), 4.5);
  EXPECT_DOUBLE_EQ(*percentile(v, 95), 4.5);
  EXPECT_FALSE(stdev(v).has_value());
}

TEST(Percentile, LinearInterpolationLikeNumpy) {
  // numpy.percentile([1, 2, 3, 4], 95) == 3.85; median == 2.5
  std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(*median(v), 2.5);
  EXPECT_NEAR(*percentile(v, 95), 3.85, 1e-12);
  EXPECT_DOUBLE_EQ(*percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(*percentile(v, 100), 4);
  std::vector<double> five{10, 20, 30, 40, 50};
  EXPECT_NEAR(*percentile(five, 95), 48.0, 1e-12);
}

TEST(Moments, HandComputed) {
  std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(*mean(v), 5.0);
  // sum of squared deviations = 32; sample variance = 32 / 7
  EXPECT_NEAR(*stdev(v), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(*coefficient_of_variation(v), std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
  // median 4.5; |dev| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> median 0.5
  EXPECT_DOUBLE_EQ(*mad(v), 0.5);
}

TEST(Moments, StdevIsStableForLargeOffsets) {
  // One-pass formulas lose every digit here.
  std::vector<double> v{1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  EXPECT_NEAR(*stdev(v), std::sqrt(30.0), 1e-6);
}

TEST(Bootstrap, SingleValueIsDegenerate) {
  std::vector<double> v{3.0};
  auto ci = bootstrap_median_ci(v);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->low, 3.0);
  EXPECT_DOUBLE_EQ(ci->high, 3.0);
}

TEST(Bootstrap, ContainsMedianAndIsDeterministic) {
  std::vector<double> v{1.0, 1.1, 0.9, 1.05, 0.95, 1.2, 0.8, 1.02, 0.98, 1.01};
  auto a = bootstrap_median_ci(v);
  auto b = bootstrap_median_ci(v);
  ASSERT_TRUE(a && b);
  EXPECT_LE(a->low, *median(v));
  EXPECT_GE(a->high, *median(v));
  EXPECT_GE(a->low, 0.8);
  EXPECT_LE(a->high, 1.2);
  EXPECT_DOUBLE_EQ(a->low, b->low);
  EXPECT_DOUBLE_EQ(a->high, b->high);
}

TEST(Bootstrap, ConstantSampleGivesPointInterval) {
  std::vector<double> v(7, 2.0);
  auto ci = bootstrap_median_ci(v);
  EXPECT_DOUBLE_EQ(ci->low, 2.0);
  EXPECT_DOUBLE_EQ(ci->high, 2.0);
}

TEST(Outliers, FlagsFarPointOnly) {
  std::vector<double> v{10, 10.1, 9.9, 10.05, 9.95, 30};
  auto o = outliers_modified_z(v);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0], 5u);
}

TEST(Outliers, ZeroMadFlagsNothing) {
  std::vector<double> v{1, 1, 1, 1, 5};
  EXPECT_TRUE(outliers_modified_z(v).empty());
}

TEST(Summary, FieldsAgree) {
  std::vector<double> v{3, 1, 2};
  auto s = summarize(v);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 3u);
  EXPECT_DOUBLE_EQ(s->min, 1);
  EXPECT_DOUBLE_EQ(s->max, 3);
  EXPECT_DOUBLE_EQ(s->median, 2);
  EXPECT_NEAR(s->p95, 2.9, 1e-12);
  EXPECT_DOUBLE_EQ(s->mean, 2);
  EXPECT_DOUBLE_EQ(s->mad, 1);
}

}  // namespace
}  // namespace jitbench::stats
