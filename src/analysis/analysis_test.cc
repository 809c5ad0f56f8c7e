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

// N* is calls, the first one included: (1.0 - 0.2) / (0.010 - 0.002) = 100
// further calls, so the JIT has taken no more time in all after call 101.
TEST(BreakEven, HandComputedCalls) {
  std::vector<double> tj{1.0, 1.0, 1.0}, te{0.2, 0.2, 0.2}, wj{0.002, 0.002}, we{0.010, 0.010};
  auto be = break_even(tj, te, wj, we);
  ASSERT_TRUE(be);
  EXPECT_EQ(be->verdict, "calls");
  EXPECT_DOUBLE_EQ(*be->calls, 101.0);  // 0.8 / 0.008 is 100.00000000000001 in doubles: still a whole 100
  EXPECT_DOUBLE_EQ(*be->ci_low, 101.0);  // no spread, no interval
  EXPECT_DOUBLE_EQ(*be->ci_high, 101.0);
  EXPECT_EQ(n_star_text(*be), "101");
  std::vector<double> close{0.2032};  // 0.0032 / 0.008 = 0.4 further calls: ahead from the second call
  EXPECT_DOUBLE_EQ(*break_even(close, te, wj, we)->calls, 2.0);
}

TEST(BreakEven, NeverWhenNotFasterWarm) {
  std::vector<double> tj{1.0}, te{0.2}, wj{0.010}, we{0.005};
  auto be = break_even(tj, te, wj, we);
  EXPECT_EQ(be->verdict, "never");
  EXPECT_FALSE(be->calls);
  EXPECT_FALSE(be->ci_high);
  EXPECT_FALSE(be->ahead_until_call);  // never ahead
  EXPECT_EQ(n_star_text(*be), "never");
}

// Sooner to the first result and no slower warm: N* is 1, one number, where
// it once read "immediately", "from the first call" and 0.0.
TEST(BreakEven, OneWhenFasterFromTheFirstCall) {
  std::vector<double> tj{0.1}, te{0.2}, wj{0.001}, we{0.005};
  auto be = break_even(tj, te, wj, we);
  EXPECT_EQ(be->verdict, "calls");
  EXPECT_DOUBLE_EQ(*be->calls, 1.0);
  EXPECT_EQ(n_star_text(*be), "1");
}

// Sooner to the first result but slower warm: the eager function catches up,
// so the JIT never pays for itself for good; it is ahead through call 1 +
// floor(0.1 s / 4 ms) = 26.
TEST(BreakEven, NeverAfterALeadWhenSlowerWarm) {
  std::vector<double> tj{0.1}, te{0.2}, wj{0.005}, we{0.001};
  auto be = break_even(tj, te, wj, we);
  EXPECT_EQ(be->verdict, "never");
  EXPECT_FALSE(be->calls);
  EXPECT_DOUBLE_EQ(*be->ahead_until_call, 26.0);
  std::vector<double> same{0.001};  // no slower warm: ahead for good
  EXPECT_DOUBLE_EQ(*break_even(tj, te, same, same)->calls, 1.0);
  std::vector<double> tie{0.2};  // the same first result and slower warm: eager is ahead from then on
  EXPECT_EQ(break_even(tie, te, wj, we)->verdict, "never");
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

TEST(EagerBaseline, EachEnvironmentsJitIsWeighedAgainstItsOwnEager) {
  auto mk = [](std::string b, std::string env) {
    CaseResult c;
    c.c = make_case(b, "matmul", 8, "f32", CachePolicy::ColdCache, Precision::Default, env);
    c.status = Status::Ok;
    return c;
  };
  // Two releases, the eager cases first (as a run across environments lists them).
  std::vector<CaseResult> all{mk("jax_eager_cpu", "old"), mk("jax_eager_cpu", "new"), mk("jax_jit_cpu", "old"),
                              mk("jax_jit_cpu", "new")};
  EXPECT_EQ(eager_baseline(all[2], all).c, &all[0]);
  EXPECT_EQ(eager_baseline(all[3], all).c, &all[1]);
  all.erase(all.begin() + 1);  // the new release's eager case is gone: the old one stands in
  EXPECT_EQ(eager_baseline(all[2], all).c, &all[0]);
  // Its own environment's eager case at a policy that is no baseline does not hide the other one.
  CaseResult warm = mk("jax_eager_cpu", "new");
  warm.c = make_case("jax_eager_cpu", "matmul", 8, "f32", CachePolicy::WarmProcess, Precision::Default, "new");
  all.push_back(warm);
  EXPECT_EQ(eager_baseline(all[2], all).c, &all[0]);
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

namespace jitbench {
namespace {

// An ok case whose warm calls all took `warm_s`, on `platform`, multiplying in `format`.
CaseResult timed_case(const std::string& backend, const std::string& workload, long n, double warm_s,
                      const std::string& platform = "cpu", const std::string& format = "ieee_fp32",
                      const std::string& dtype = "f32") {
  CaseResult c;
  c.c = make_case(backend, workload, n, dtype);
  c.status = Status::Ok;
  RunRecord r;
  r.status = Status::Ok;
  r.mode = RunMode::Warm;
  r.calls_s = {warm_s, warm_s, warm_s};
  // What the workers report of each call's work (check()'s info), as the catalog's records name it.
  const double nd = static_cast<double>(n);
  nlohmann::json info = nlohmann::json::object();
  if (workload == "matmul") info["flops"] = 2 * nd * nd * nd;
  if (workload == "mc_pi") info["n"] = nd;
  r.worker = parse_worker_report(
      {{"device", {{"platform", platform}}}, {"precision", {{"matmul", format}}}, {"workload", info}});
  c.warm.push_back(r);
  return c;
}

// The case's warm run as a worker reports it with this info and this workload record; returns the raw report.
nlohmann::json with_record(CaseResult& c, const nlohmann::json& info, const std::string& name,
                           const std::string& field, double scale, const std::string& unit, nlohmann::json extra) {
  auto raw = c.warm[0].worker.raw;
  raw["workload"] = info;
  extra["name"] = name;
  extra["summary"] = "x";
  extra["work"] = {{"field", field}, {"scale", scale}, {"unit", unit}};
  raw["workload_record"] = extra;
  c.warm[0].worker = parse_worker_report(raw);
  return raw;
}

TEST(Throughput, TheWorkCountAndUnitComeFromTheReportedRecord) {
  // A user workload the catalog does not know: its worker sent its record.
  CaseResult c = timed_case("numba", "matmul", 10, 0.5);
  c.c = make_case("numba", "my_loop", 10, "f32");  // read back: no record carried
  auto raw = with_record(c, {{"steps_done", 100}}, "my_loop", "steps_done", 1.0, "steps",
                         {{"ceiling_note", "none for a loop"}});
  const auto rows = throughput_rows({c}, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].unit, "steps/s");
  EXPECT_NEAR(rows[0].achieved, 200.0, 1e-9);
  EXPECT_EQ(rows[0].ceiling_note, "none for a loop");
  // Without a work count in the info, or without a record, no row.
  raw["workload"] = nlohmann::json::object();
  c.warm[0].worker = parse_worker_report(raw);
  EXPECT_TRUE(throughput_rows({c}, nullptr).empty());
}

TEST(Throughput, ABuiltInWorkloadsRecordIsTheCatalogsNotTheWorkers) {
  // A worker claiming mc_pi counts GFLOP against a GEMM ceiling is not believed.
  CaseResult c = timed_case("numba", "mc_pi", 1000000, 0.001);
  with_record(c, {{"n", 1000000}, {"flops", 1e12}}, "mc_pi", "flops", 1e-9, "GFLOP", {{"ceiling", "gemm"}});
  const auto rows = throughput_rows({c}, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].unit, "samples/s");
  EXPECT_NEAR(rows[0].achieved, 1e9, 1e-3);
  EXPECT_TRUE(rows[0].ceiling_name.empty());
}

const ThroughputRow& row_of(const std::vector<ThroughputRow>& rows, const std::string& id) {
  for (const auto& r : rows)
    if (r.c->c.id == id) return r;
  throw std::runtime_error("no row " + id);
}

TEST(Throughput, FractionOfTheNativeFloorOnTheSameDevice) {
  // matmul n=1000: 2e9 FLOP; native 0.01 s = 200 GFLOP/s, numba 0.02 s = 100 GFLOP/s.
  std::vector<CaseResult> cases{timed_case("native", "matmul", 1000, 0.01), timed_case("numba", "matmul", 1000, 0.02),
                                timed_case("numba", "mc_pi", 1000000, 0.001)};
  const nlohmann::json ceilings = {{"cpu", {{"measured", true}, {"sgemm_gflops", 400.0}}},
                                   {"gpu", {{"measured", false}, {"reason", "no GPU"}}}};
  const auto rows = throughput_rows(cases, ceilings);
  ASSERT_EQ(rows.size(), 3u);
  const auto& numba = row_of(rows, "numba_matmul_1000_f32");
  EXPECT_EQ(numba.unit, "GFLOP/s");
  EXPECT_NEAR(numba.achieved, 100.0, 1e-9);
  ASSERT_TRUE(numba.floor);
  EXPECT_EQ(numba.floor->c.id, "native_matmul_1000_f32");
  EXPECT_NEAR(*numba.fraction_of_floor, 0.5, 1e-12);
  EXPECT_EQ(numba.ceiling_name, "cpu.sgemm_gflops");
  EXPECT_NEAR(*numba.fraction_of_ceiling, 0.25, 1e-12);
  // No native mc_pi of that size: no floor, and the row says why.
  const auto& pi = row_of(rows, "numba_mc_pi_1000000_f32");
  EXPECT_EQ(pi.unit, "samples/s");
  EXPECT_NEAR(pi.achieved, 1e9, 1e-3);
  EXPECT_FALSE(pi.floor);
  EXPECT_NE(pi.floor_note.find("no ok native case of mc_pi_1000000_f32"), std::string::npos);
  EXPECT_FALSE(pi.ceiling);
}

TEST(Throughput, GpuCasesUseTheCudaFloorAndTheCeilingOfTheirFormat) {
  std::vector<CaseResult> cases{timed_case("native", "matmul", 1000, 0.01),
                                timed_case("jax_jit_gpu", "matmul", 1000, 0.001, "gpu", "tf32"),
                                timed_case("torch_compile_gpu", "matmul", 1000, 0.002, "gpu", "ieee_fp32")};
  nlohmann::json ceilings = {{"cpu", {{"measured", true}, {"sgemm_gflops", 400.0}}},
                             {"gpu", {{"measured", true}, {"sgemm_tf32_gflops", 4000.0}, {"sgemm_gflops", 2000.0}}}};
  auto rows = throughput_rows(cases, ceilings);
  const auto& jax = row_of(rows, "jax_jit_gpu_matmul_1000_f32");
  EXPECT_EQ(jax.device, "gpu");
  EXPECT_FALSE(jax.floor) << "the CPU floor must not stand in for the GPU's";
  EXPECT_NE(jax.floor_note.find("native_cuda"), std::string::npos);
  EXPECT_EQ(jax.ceiling_name, "gpu.sgemm_tf32_gflops");
  EXPECT_NEAR(*jax.fraction_of_ceiling, 0.5, 1e-12);
  EXPECT_EQ(row_of(rows, "torch_compile_gpu_matmul_1000_f32").ceiling_name, "gpu.sgemm_gflops");
  // With a CUDA floor, the GPU cases are weighed against it.
  cases.push_back(timed_case("native_cuda", "matmul", 1000, 0.0008, "gpu", "tf32"));
  rows = throughput_rows(cases, ceilings);
  const auto& jax2 = row_of(rows, "jax_jit_gpu_matmul_1000_f32");
  ASSERT_TRUE(jax2.floor);
  EXPECT_EQ(jax2.floor->c.backend, "native_cuda");
  EXPECT_NEAR(*jax2.fraction_of_floor, 0.8, 1e-12);
  // Ceilings not measured: no fraction, the reason instead.
  ceilings["gpu"] = {{"measured", false}, {"reason", "gpu_unavailable"}};
  rows = throughput_rows(cases, ceilings);
  EXPECT_FALSE(row_of(rows, "jax_jit_gpu_matmul_1000_f32").ceiling);
  EXPECT_NE(row_of(rows, "jax_jit_gpu_matmul_1000_f32").ceiling_note.find("gpu_unavailable"), std::string::npos);
}

TEST(Throughput, OnlyOkCasesWithWarmCallsAndAKnownWork) {
  auto failed = timed_case("numba", "matmul", 100, 0.01);
  failed.status = Status::Failed;
  std::vector<CaseResult> cases{failed, timed_case("numba", "retrace_raw", 100, 0.01)};
  EXPECT_TRUE(throughput_rows(cases, nullptr).empty());
}

}  // namespace
}  // namespace jitbench
