#include "analysis/analysis.h"

#include <gtest/gtest.h>

#include "run/case_runner.h"

namespace jitbench {
namespace {

RunRecord run_with_phases(double first_call, nlohmann::json phases) {
  RunRecord r;
  r.status = Status::Ok;
  r.first_call_s = first_call;
  r.worker = {{"first_call", {{"phases", phases}, {"phase_names", {"trace", "lower", "compile"}}}}};
  return r;
}

TEST(PhaseBreakdown, ResidualMakesPartsAddUp) {
  auto b = phase_breakdown(run_with_phases(1.0, {{"trace", 0.1}, {"lower", 0.2}, {"compile", 0.5}}));
  ASSERT_TRUE(b);
  EXPECT_NEAR(b->sum_phases, 0.8, 1e-12);
  EXPECT_NEAR(b->residual, 0.2, 1e-12);
  EXPECT_TRUE(b->reconciled);
  EXPECT_DOUBLE_EQ(b->discrepancy_pct, 0.0);
  ASSERT_EQ(b->phases.size(), 3u);
  EXPECT_EQ(b->phases[0].first, "trace");
}

TEST(PhaseBreakdown, OvershootWithinTwoPercentStillReconciles) {
  auto b = phase_breakdown(run_with_phases(1.0, {{"trace", 0.5}, {"lower", 0.0}, {"compile", 0.515}}));
  EXPECT_TRUE(b->reconciled);
  EXPECT_NEAR(b->discrepancy_pct, 1.5, 1e-9);
}

TEST(PhaseBreakdown, OvershootBeyondTwoPercentIsFlaggedWithAmount) {
  auto b = phase_breakdown(run_with_phases(1.0, {{"trace", 0.5}, {"lower", 0.1}, {"compile", 0.5}}));
  EXPECT_FALSE(b->reconciled);
  EXPECT_NEAR(b->discrepancy_pct, 10.0, 1e-9);
}

TEST(PhaseBreakdown, MissingPhasesCountAsZeroAndNoReportIsNullopt) {
  auto b = phase_breakdown(run_with_phases(0.3, nlohmann::json::object()));
  EXPECT_NEAR(b->residual, 0.3, 1e-12);
  RunRecord bare;
  bare.first_call_s = 0.3;
  EXPECT_FALSE(phase_breakdown(bare));
}

TEST(BreakEven, HandComputedCalls) {
  // (1.0 - 0.2) / (0.010 - 0.002) = 100 calls
  std::vector<double> tj{1.0, 1.0, 1.0}, te{0.2, 0.2, 0.2}, wj{0.002, 0.002}, we{0.010, 0.010};
  auto be = break_even(tj, te, wj, we);
  ASSERT_TRUE(be);
  EXPECT_EQ(be->verdict, "calls");
  EXPECT_NEAR(*be->calls, 100.0, 1e-9);
  EXPECT_NEAR(*be->ci_low, 100.0, 1e-9);  // no spread, no interval
  EXPECT_NEAR(*be->ci_high, 100.0, 1e-9);
}

TEST(BreakEven, NeverWhenNotFasterWarm) {
  std::vector<double> tj{1.0}, te{0.2}, wj{0.010}, we{0.005};
  auto be = break_even(tj, te, wj, we);
  EXPECT_EQ(be->verdict, "never");
  EXPECT_FALSE(be->calls);
  EXPECT_FALSE(be->ci_high);
}

TEST(BreakEven, ImmediatelyWhenFasterFromTheFirstCall) {
  std::vector<double> tj{0.1}, te{0.2}, wj{0.001}, we{0.005};
  auto be = break_even(tj, te, wj, we);
  EXPECT_EQ(be->verdict, "immediately");
  EXPECT_DOUBLE_EQ(*be->calls, 0.0);
}

TEST(BreakEven, IntervalCoversPointEstimateWithNoise) {
  std::vector<double> tj{1.0, 1.1, 0.9, 1.05, 0.95}, te{0.2, 0.21, 0.19}, wj{0.002, 0.0021, 0.0019},
      we{0.010, 0.011, 0.009, 0.0105};
  auto be = break_even(tj, te, wj, we);
  ASSERT_TRUE(be && be->ci_low && be->ci_high);
  EXPECT_LE(*be->ci_low, *be->calls);
  EXPECT_GE(*be->ci_high, *be->calls);
  std::vector<double> empty;
  EXPECT_FALSE(break_even(empty, te, wj, we));
}

TEST(VerifyCacheUsed, NoHitsIsWarnCacheNotUsed) {
  RunRecord r;
  r.status = Status::Ok;
  r.worker = {{"cache_events", {{"hits", 0}, {"misses", 1}}}};
  verify_cache_used(r);
  EXPECT_EQ(r.status, Status::Warn);
  EXPECT_EQ(r.reason, "cache_not_used");
}

TEST(VerifyCacheUsed, HitsKeepOkAndSilenceIsUnverified) {
  RunRecord hit;
  hit.status = Status::Ok;
  hit.worker = {{"cache_events", {{"hits", 2}}}};
  verify_cache_used(hit);
  EXPECT_EQ(hit.status, Status::Ok);
  RunRecord silent;
  silent.status = Status::Ok;
  silent.worker = {{"cache_events", nlohmann::json::object()}};
  verify_cache_used(silent);
  EXPECT_EQ(silent.status, Status::Ok);
  EXPECT_NE(silent.detail.find("unverified"), std::string::npos);
}

TEST(EagerBaseline, SameWorkloadAndPolicyElseColdCache) {
  auto mk = [](std::string b, std::string policy) {
    CaseResult c;
    c.c = {b + "_x", b, "matmul", 8, "f32", policy};
    c.status = Status::Ok;
    return c;
  };
  std::vector<CaseResult> all{mk("numpy", "cold_cache"), mk("numpy", "warm_process"), mk("jax_jit_cpu", "warm_cache"),
                              mk("jax_jit_cpu", "warm_process")};
  EXPECT_EQ(eager_baseline(all[2], all), &all[0]);  // numpy has no warm_cache case
  EXPECT_EQ(eager_baseline(all[3], all), &all[1]);
}

}  // namespace
}  // namespace jitbench
