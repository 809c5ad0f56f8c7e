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

TEST(VerifyCacheUsed, NoHitsIsWarnCacheNotUsed) {
  RunRecord r;
  r.status = Status::Ok;
  r.worker = {{"cache_events", {{"hits", 0}, {"misses", 1}}}};
  verify_cache_used(r);
  EXPECT_EQ(r.status, Status::Warn);
  EXPECT_EQ(r.reason, "cache_not_used");
}

TEST(VerifyCacheUsed, EveryClaimCanFail) {
  const auto judged = [](nlohmann::json worker) {
    RunRecord r;
    r.status = Status::Ok;
    r.worker = std::move(worker);
    verify_cache_used(r);
    return r;
  };
  const nlohmann::json read = {{"available", true}, {"entries_read", 3}};
  auto hit = judged({{"cache_events", {{"hits", 2}, {"misses", 0}}}, {"cache_files", read}});
  EXPECT_EQ(hit.status, Status::Ok);
  EXPECT_NE(hit.detail.find("3 cache entries read"), std::string::npos);
  // Silence is not a hit.
  EXPECT_EQ(judged({{"cache_events", nlohmann::json::object()}}).reason, "cache_unverified");
  // A miss beside a hit: part of the first call compiled anew.
  EXPECT_EQ(judged({{"cache_events", {{"hits", 1}, {"misses", 1}}}}).reason, "cache_partially_used");
  // A framework (or worker) that claims a hit while the kernel saw nothing read.
  auto lie = judged({{"cache_events", {{"hits", 1}, {"misses", 0}}},
                     {"cache_files", {{"available", true}, {"entries_read", 0}}}});
  EXPECT_EQ(lie.reason, "cache_evidence_conflict");
}

TEST(VerifyCacheCold, ReadingOldEntriesIsNotCold) {
  RunRecord r;
  r.status = Status::Ok;
  r.worker = {{"cache_files", {{"available", true}, {"entries_read", 2}}}};
  verify_cache_cold(r);
  EXPECT_EQ(r.reason, "cache_not_cold");
  RunRecord fresh;
  fresh.status = Status::Ok;
  fresh.worker = {{"cache_files", {{"available", true}, {"entries_read", 0}}}};
  verify_cache_cold(fresh);
  EXPECT_EQ(fresh.status, Status::Ok);
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
  EXPECT_EQ(eager_baseline(all[2], all).c, &all[0]);  // numpy has no warm_cache case
  EXPECT_EQ(eager_baseline(all[3], all).c, &all[1]);
}

TEST(EagerBaseline, SameFrameworkOnSameDeviceElseNumpyWithReason) {
  auto mk = [](std::string b, std::string precision = "default") {
    CaseResult c;
    c.c = {b + "_x", b, "matmul", 8, "f32", "cold_cache", precision};
    c.status = Status::Ok;
    return c;
  };
  std::vector<CaseResult> all{mk("numpy"), mk("torch_eager_gpu"), mk("torch_compile_gpu"), mk("jax_jit_gpu"),
                              mk("jax_eager_gpu", "highest")};
  auto torch = eager_baseline(all[2], all);
  EXPECT_EQ(torch.c, &all[1]);
  EXPECT_EQ(torch.kind, "same_framework");
  EXPECT_TRUE(torch.note.empty());
  // jax_eager_gpu is there, but at another precision: NumPy stands in, and says why.
  auto jax = eager_baseline(all[3], all);
  EXPECT_EQ(jax.c, &all[0]);
  EXPECT_EQ(jax.kind, "numpy");
  EXPECT_NE(jax.note.find("jax_eager_gpu"), std::string::npos);
  EXPECT_TRUE(is_jit_backend("triton"));
  EXPECT_FALSE(is_jit_backend("jax_eager_cpu"));
  EXPECT_FALSE(is_jit_backend("torch_eager_gpu"));
}

}  // namespace
}  // namespace jitbench
