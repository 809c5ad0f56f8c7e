#include "compare/noise.h"

#include <gtest/gtest.h>

#include <vector>

#include "compare/significance.h"

namespace jitbench::compare {
namespace {

bool gate_confirms(const std::vector<double>& a, std::vector<double> b, double f, double alpha) {
  const auto ci = ratio_of_medians(a, b);
  for (auto& x : b) x *= f;
  const auto mw = mann_whitney(a, b);
  return exceeds_regression_limit(true, mw->p_value, alpha, ci->lo * f, 1.0);
}

TEST(NoiseFloor, IsTheSmallestSlowdownTheGateConfirms) {
  const std::vector<double> a = {1.00, 1.04, 0.97, 1.10, 0.95, 1.02, 1.06, 0.99};
  const std::vector<double> b = {1.03, 0.96, 1.08, 1.01, 0.98, 1.05, 0.94, 1.07};
  const auto pct = smallest_detectable_pct(a, b, 0.05);
  ASSERT_TRUE(pct);
  EXPECT_GT(*pct, 0.0);
  const double f = 1 + *pct / 100;
  // Just above the floor the gate confirms a slowdown (whichever side is BASE), just below it does not on the side that set it.
  EXPECT_TRUE(gate_confirms(a, b, f * 1.001, 0.05) && gate_confirms(b, a, f * 1.001, 0.05));
  EXPECT_FALSE(gate_confirms(a, b, f * 0.99, 0.05) && gate_confirms(b, a, f * 0.99, 0.05));
}

TEST(NoiseFloor, GrowsWithTheSpread) {
  const std::vector<double> a = {1.00, 1.01, 0.99, 1.02, 0.98, 1.00};
  const std::vector<double> b = {1.01, 0.99, 1.00, 1.02, 0.98, 1.01};
  std::vector<double> wa = a, wb = b;
  for (auto& x : wa) x = 1 + (x - 1) * 10;
  for (auto& x : wb) x = 1 + (x - 1) * 10;
  EXPECT_LT(*smallest_detectable_pct(a, b, 0.05), *smallest_detectable_pct(wa, wb, 0.05));
}

TEST(NoiseFloor, NoneWhenTheTestCannotReachAlpha) {
  EXPECT_FALSE(smallest_detectable_pct(std::vector<double>{1.0, 1.1}, std::vector<double>{1.0, 1.2}, 0.05));
}

TEST(NoiseFloor, OneRuleForEveryThreshold) {
  NoiseMetric m;
  m.testable = true;
  m.detectable_pct = 12.5;
  EXPECT_EQ(check_floor(&m, 12.4), FloorCheck::Below);
  EXPECT_EQ(check_floor(&m, 12.5), FloorCheck::Holds);  // the floor itself is confirmable
  EXPECT_EQ(check_floor(&m, 30), FloorCheck::Holds);
  m.detectable_pct.reset();  // testable, yet nothing up to 100x confirmed: every threshold is below
  EXPECT_EQ(check_floor(&m, 1000), FloorCheck::Below);
  m.testable = false;  // too few processes in the A/A: no floor was measured, nothing to hold a threshold to
  EXPECT_EQ(check_floor(&m, 1), FloorCheck::Untestable);
  EXPECT_EQ(check_floor(nullptr, 1), FloorCheck::NotMeasured);
}

}  // namespace
}  // namespace jitbench::compare
