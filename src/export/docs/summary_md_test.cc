// What summary.md decides, from hand-made results: which cases share a
// workload section (and in which order), when the matmul precision is a column,
// one line or nothing, when a run is noisy enough for its High variance note,
// whether every case ran cleanly, and which explanations "How to read" carries
// (those of the sections the summary has, no other). The wording is the golden
// tests'; here only what is shown and where.
#include "export/docs/summary_md.h"

#include <gtest/gtest.h>

#include "results/worker_report.h"

namespace jitbench {
namespace {

// One case: cold runs whose first calls took these seconds (import 0.1 s, setup 0.01 s), one warm process.
CaseResult result(const std::string& backend, const std::string& workload, long n, const std::string& dtype,
                  const std::vector<double>& first_calls, const std::string& precision = "",
                  const nlohmann::json& first_call_report = nullptr) {
  CaseResult c;
  c.c.id = backend + "_" + workload + "_" + std::to_string(n) + "_" + dtype;
  c.c.backend = backend;
  c.c.workload = workload;
  c.c.n = n;
  c.c.dtype = dtype;
  nlohmann::json report = nlohmann::json::object();
  if (!precision.empty()) report["precision"] = {{"matmul", precision}};
  if (!first_call_report.is_null()) report["first_call"] = first_call_report;
  for (const double x : first_calls) {
    RunRecord r;
    r.mode = RunMode::Cold;
    r.index = static_cast<int>(c.cold.size());
    r.status = Status::Ok;
    r.import_s = 0.1;
    r.setup_s = 0.01;
    r.first_call_s = x;
    if (!report.empty()) r.worker = parse_worker_report(report);
    c.cold.push_back(r);
  }
  RunRecord warm;
  warm.mode = RunMode::Warm;
  warm.status = Status::Ok;
  warm.calls_s = {0.001, 0.001, 0.001};
  c.warm.push_back(warm);
  c.cold_runs = static_cast<int>(first_calls.size());
  c.warm_runs = 1;
  return c;
}

std::string summary_of(const std::vector<CaseResult>& cases) {
  RunInfo info;
  info.suite_name = "unit";
  info.n_planned = cases.size();
  return summary_md(info, cases, analyze(cases));
}

bool has(const std::string& md, const std::string& text) { return md.find(text) != std::string::npos; }

TEST(SummaryMd, OneSectionPerWorkSizeAndDtypeInTheOrderTheRunMeasuredThem) {
  const auto md = summary_of({result("numpy", "matmul", 64, "f32", {0.2, 0.2, 0.2}),
                              result("numpy", "mc_pi", 1000, "f64", {0.3, 0.3, 0.3}),
                              result("numba", "matmul", 64, "f32", {0.4, 0.4, 0.4}),
                              result("numba", "matmul", 64, "f64", {0.4, 0.4, 0.4})});
  const auto matmul = md.find("\n## `matmul_64_f32`"), mc_pi = md.find("\n## `mc_pi_1000_f64`"),
             f64 = md.find("\n## `matmul_64_f64`");
  ASSERT_NE(matmul, std::string::npos) << md;
  ASSERT_NE(mc_pi, std::string::npos) << md;
  ASSERT_NE(f64, std::string::npos) << md;  // another dtype is another piece of work
  EXPECT_LT(matmul, mc_pi);
  EXPECT_LT(mc_pi, f64);
  EXPECT_EQ(md.find("\n## `matmul_64_f32`", matmul + 1), std::string::npos);  // numba's row joins numpy's section
  const auto numba_row = md.find("`numba`", matmul);
  EXPECT_LT(numba_row, mc_pi);
}

TEST(SummaryMd, MatmulPrecisionIsAColumnOnlyWhereTheCasesOfAWorkDiffer) {
  const auto plain = summary_of({result("numpy", "matmul", 64, "f32", {0.2, 0.2, 0.2}, "ieee_fp32"),
                                 result("numba", "matmul", 64, "f32", {0.4, 0.4, 0.4}, "ieee_fp32")});
  EXPECT_FALSE(has(plain, "Matmul precision")) << plain;  // what the dtype says: nothing to add
  const auto shared = summary_of({result("jax_jit_gpu", "matmul", 64, "f32", {0.2, 0.2, 0.2}, "tf32"),
                                  result("jax_eager_gpu", "matmul", 64, "f32", {0.4, 0.4, 0.4}, "tf32")});
  EXPECT_TRUE(has(shared, "Matmul precision: tf32.")) << shared;  // one line for the section
  EXPECT_FALSE(has(shared, "| Matmul precision |")) << shared;
  const auto differ = summary_of({result("jax_jit_gpu", "matmul", 64, "f32", {0.2, 0.2, 0.2}, "tf32"),
                                  result("numpy", "matmul", 64, "f32", {0.4, 0.4, 0.4}, "ieee_fp32")});
  EXPECT_TRUE(has(differ, "Matmul precision |")) << differ;  // a column: each row its own
  EXPECT_FALSE(has(differ, "Matmul precision: ")) << differ;
}

TEST(SummaryMd, HighVarianceIsNotedAboveTenPercentAndNamesTheCase) {
  const auto steady = summary_of({result("numpy", "matmul", 64, "f32", {0.20, 0.21, 0.20})});
  EXPECT_FALSE(has(steady, "## High variance")) << steady;
  const auto noisy = summary_of({result("numpy", "matmul", 64, "f32", {0.20, 0.21, 0.20}),
                                 result("numba", "matmul", 64, "f32", {0.2, 0.6, 0.2})});
  const auto at = noisy.find("## High variance");
  ASSERT_NE(at, std::string::npos) << noisy;
  const auto note = noisy.substr(at, noisy.find("\n## ", at) - at);
  EXPECT_TRUE(has(note, "numba_matmul_64_f32")) << note;
  EXPECT_FALSE(has(note, "numpy_matmul_64_f32")) << note;  // the steady case is not named
}

TEST(SummaryMd, EveryCaseRanCleanlyOnlyWhenNoneFailedOrWarned) {
  auto ok = result("numpy", "matmul", 64, "f32", {0.2, 0.2, 0.2});
  EXPECT_TRUE(has(summary_of({ok}), "Every case ran cleanly."));
  auto failed = result("numba", "matmul", 64, "f32", {});
  failed.status = Status::Failed;
  failed.reason = {ReasonCode::WorkerFailed, ""};
  const auto md = summary_of({ok, failed});
  EXPECT_FALSE(has(md, "Every case ran cleanly.")) << md;
  EXPECT_TRUE(has(md, "worker_failed")) << md;
}

TEST(SummaryMd, HowToReadExplainsTheSectionsTheSummaryHasAndNoOthers) {
  const auto bare = summary_of({result("numpy", "matmul", 64, "f32", {0.2, 0.2, 0.2})});
  EXPECT_TRUE(has(bare, "## How to read"));
  EXPECT_FALSE(has(bare, "## Phases of the first call")) << bare;
  EXPECT_FALSE(has(bare, "- **Phases of the first call**")) << bare;
  EXPECT_FALSE(has(bare, "- **Break-even**")) << bare;
  const nlohmann::json phases = {{"phases", {{"trace", 0.05}, {"compile", 0.1}}},
                                 {"phase_names", {"trace", "compile"}}};
  const auto with_phases = summary_of({result("jax_jit_cpu", "matmul", 64, "f32", {0.2, 0.2, 0.2}, "", phases)});
  EXPECT_TRUE(has(with_phases, "## Phases of the first call")) << with_phases;
  EXPECT_TRUE(has(with_phases, "- **Phases of the first call**")) << with_phases;
  EXPECT_FALSE(has(with_phases, "- **Break-even**")) << with_phases;
}

}  // namespace
}  // namespace jitbench
