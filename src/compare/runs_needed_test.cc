#include "compare/runs_needed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace jitbench::compare {
namespace {

TEST(RunsNeeded, NormalQuantileMatchesTheTables) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.80), 0.841621, 1e-6);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
}

// The power formula on the log samples, checked by hand: each side's logs are
// +-0.1 around its mean (sample variance 0.01 * 6 / 5 = 0.012 with 6 runs), the
// step's mean log ratio is log 1.2 against a limit of 1.1.
TEST(RunsNeeded, TheEstimateIsThePowerFormulaOnTheLogSamples) {
  std::vector<double> base, next;
  for (int i = 0; i < 6; ++i) {
    const double e = i % 2 ? 0.1 : -0.1;
    base.push_back(std::exp(e));
    next.push_back(1.2 * std::exp(e));
  }
  const double z = 1.959964 + 0.841621, gap = std::log(1.2) - std::log(1.1);
  const long expected = static_cast<long>(std::ceil(2 * 0.012 * z * z / (gap * gap)));  // 25
  const auto r = runs_needed(base, next, 1.1, 0.05);
  EXPECT_TRUE(r.decidable);
  EXPECT_EQ(r.estimate, expected);
  EXPECT_EQ(r.more, std::min(expected - 6, (kMaxGrowth - 1) * 6));  // at most 4x the runs so far in one round
}

TEST(RunsNeeded, AStepOnTheLimitCannotBeDecidedAtThisNoise) {
  std::vector<double> base = {1.0, 1.1, 0.9, 1.05, 0.95}, next;
  for (const double b : base) next.push_back(b * 1.1);  // exactly the limit: no number of runs decides it
  EXPECT_FALSE(runs_needed(base, next, 1.1, 0.05).decidable);
  for (auto& x : next) x *= 1.001;  // 0.1% from the limit, at a spread of 7%: tens of thousands of runs
  const auto r = runs_needed(base, next, 1.1, 0.05);
  EXPECT_FALSE(r.decidable);
  EXPECT_GT(r.estimate, kMaxRunsPerSide);
}

TEST(RunsNeeded, TooFewRunsForASpreadAskForAFewMore) {
  EXPECT_EQ(runs_needed({1.0}, {1.2}, 1.1, 0.05).more, 3);
  EXPECT_EQ(runs_needed({}, {}, 1.1, 0.05).estimate, 0);
}

// What a user who follows the advice meets: steps whose true ratio lies near
// the limit, 5 runs a side, the advice followed once with fresh runs. The
// second round never asks for more than kMaxGrowth times the runs it then has
// (an advice of 8 more once became 287 more when followed).
TEST(RunsNeeded, FollowingTheAdviceOnceNeverAsksForThirtyTimesMore) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.1);
  const auto draw = [&](int k, double ratio) {
    std::vector<double> v;
    for (int i = 0; i < k; ++i) v.push_back(ratio * std::exp(noise(rng)));
    return v;
  };
  for (const double truth : {1.0, 1.05, 1.08, 1.12, 1.15, 1.3}) {
    for (int trial = 0; trial < 300; ++trial) {
      auto base = draw(5, 1.0), next = draw(5, truth);
      const auto first = runs_needed(base, next, 1.1, 0.05);
      if (!first.decidable) continue;
      const auto more_base = draw(static_cast<int>(first.more), 1.0), more_next = draw(static_cast<int>(first.more), truth);
      base.insert(base.end(), more_base.begin(), more_base.end());
      next.insert(next.end(), more_next.begin(), more_next.end());
      const auto second = runs_needed(base, next, 1.1, 0.05);
      const long had = 5 + first.more;
      EXPECT_LE(had + second.more, kMaxGrowth * had) << "truth " << truth;
      EXPECT_LE(had, kMaxGrowth * 5);
    }
  }
}

}  // namespace
}  // namespace jitbench::compare
