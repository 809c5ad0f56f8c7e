#include "analysis/analysis.h"

#include <gtest/gtest.h>


namespace jitbench {
namespace {

RunRecord run_with_phases(double first_call, nlohmann::json phases) {
  RunRecord r;
  r.status = Status::Ok;
  r.first_call_s = first_call;
  r.worker = parse_worker_report({{"first_call", {{"phases", phases}, {"phase_names", {"trace", "lower", "compile"}}}}});
  return r;
}

TEST(PhaseBreakdown, WhatNoPhaseCoversIsUnattributed) {
  auto b = phase_breakdown(run_with_phases(1.0, {{"trace", 0.1}, {"lower", 0.2}, {"compile", 0.5}}));
  ASSERT_TRUE(b);
  EXPECT_NEAR(b->sum_phases, 0.8, 1e-12);
  EXPECT_NEAR(b->unattributed, 0.2, 1e-12);
  EXPECT_NEAR(b->unattributed_share, 0.2, 1e-12);
  ASSERT_EQ(b->phases.size(), 3u);
  EXPECT_EQ(b->phases[0].first, "trace");
}

TEST(PhaseBreakdown, MissingPhasesCountAsZeroAndNoReportIsNullopt) {
  auto b = phase_breakdown(run_with_phases(0.3, nlohmann::json::object()));
  EXPECT_NEAR(b->unattributed, 0.3, 1e-12);
  EXPECT_NEAR(b->unattributed_share, 1.0, 1e-12);
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

TEST(EagerBaseline, SameWorkloadAndPolicyElseColdCache) {
  auto mk = [](std::string b, CachePolicy policy) {
    CaseResult c;
    c.c = make_case(b, "matmul", 8, "f32", policy);
    c.status = Status::Ok;
    return c;
  };
  std::vector<CaseResult> all{mk("numpy", CachePolicy::ColdCache), mk("numpy", CachePolicy::WarmProcess),
                              mk("jax_jit_cpu", CachePolicy::WarmCache), mk("jax_jit_cpu", CachePolicy::WarmProcess)};
  EXPECT_EQ(eager_baseline(all[2], all).c, &all[0]);  // numpy has no warm_cache case
  EXPECT_EQ(eager_baseline(all[3], all).c, &all[1]);
}

TEST(EagerBaseline, SameFrameworkOnSameDeviceElseNumpyWithReason) {
  auto mk = [](std::string b, Precision precision = Precision::Default) {
    CaseResult c;
    c.c = make_case(b, "matmul", 8, "f32", CachePolicy::ColdCache, precision);
    c.status = Status::Ok;
    return c;
  };
  std::vector<CaseResult> all{mk("numpy"), mk("torch_eager_gpu"), mk("torch_compile_gpu"), mk("jax_jit_gpu"),
                              mk("jax_eager_gpu", Precision::Highest)};
  auto torch = eager_baseline(all[2], all);
  EXPECT_EQ(torch.c, &all[1]);
  EXPECT_EQ(torch.kind, "same_framework");
  EXPECT_TRUE(torch.note.empty());
  // jax_eager_gpu is there, but at another precision: NumPy stands in, and says why.
  auto jax = eager_baseline(all[3], all);
  EXPECT_EQ(jax.c, &all[0]);
  EXPECT_EQ(jax.kind, "numpy");
  EXPECT_NE(jax.note.find("jax_eager_gpu"), std::string::npos);
  // The catalog's facts travel with the case.
  EXPECT_TRUE(make_case("triton", "matmul", 8, "f32").jit);
  EXPECT_FALSE(make_case("jax_eager_cpu", "matmul", 8, "f32").jit);
  EXPECT_FALSE(make_case("torch_eager_gpu", "matmul", 8, "f32").jit);
  EXPECT_EQ(make_case("jax_jit_gpu", "matmul", 8, "f32").baseline, "jax_eager_gpu");
}

}  // namespace
}  // namespace jitbench
