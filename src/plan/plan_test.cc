#include "plan/plan.h"

#include <gtest/gtest.h>
#include <filesystem>

#include "util/fs.h"

namespace jitbench {
namespace {

Suite two_blocks() {
  Suite s;
  s.matrix.push_back({{"numpy", "jax_jit_cpu"}, {"matmul"}, {512, 1024}, {"f32"}, {}, {}});
  s.matrix.push_back({{"python", "numpy"}, {"mc_pi"}, {1000}, {"f64"}, {}, {}});
  return s;
}

TEST(Plan, EachCaseCarriesTheRecordsOfTheCatalogItWasPlannedFrom) {
  const Catalog& catalog = Catalog::builtin();
  auto r = make_plan(catalog, two_blocks(), {});
  ASSERT_TRUE(std::holds_alternative<std::vector<Case>>(r));
  for (const auto& c : std::get<std::vector<Case>>(r)) {
    EXPECT_EQ(c.backend_info, catalog.find_backend(c.backend)) << c.id;  // the same record, shared
    EXPECT_EQ(c.workload_info, catalog.find_workload(c.workload)) << c.id;
    EXPECT_EQ(c.worker(), c.backend_info->worker);
  }
}

TEST(CaseId, AGroupIsNamedWhole) {
  EXPECT_EQ(group_label({"a__env-x"}), "a__env-x");
  EXPECT_EQ(group_label({"a__env-x", "a__env-y"}), "2 cases interleaved: a__env-x, a__env-y");
  const std::vector<std::string> many(8, "numpy_matmul_512_f32__env-numpy-2.1.0");
  EXPECT_EQ(group_label(many), "8 cases interleaved: numpy_matmul_512_f32__env-numpy-2.1.0 and 7 more");
}

TEST(CaseId, MatchesSeedContract) {
  EXPECT_EQ(make_case_id("jax_jit_cpu", "matmul", 512, "f32", *parse_cache_policy("process_cold")),
            "jax_jit_cpu_matmul_512_f32");
  EXPECT_EQ(make_case_id("numpy", "mc_pi", 100, "f64", CachePolicy::WarmCache), "numpy_mc_pi_100_f64__warm_cache");
  EXPECT_EQ(make_case_id("numpy", "mc_pi", 100, "f64", CachePolicy::WarmCache, Precision::Highest),
            "numpy_mc_pi_100_f64__warm_cache__highest");
}

TEST(CaseSpec, ParsesWorkloadsWithUnderscores) {
  auto r = parse_case_spec("mc_pi_100000_f64", Catalog::builtin());
  ASSERT_TRUE(std::holds_alternative<std::vector<CaseSpec>>(r));
  ASSERT_EQ(std::get<std::vector<CaseSpec>>(r).size(), 1u);
  const auto& s = std::get<std::vector<CaseSpec>>(r)[0];
  EXPECT_EQ(s.workload, "mc_pi");
  EXPECT_EQ(s.n, 100000);
  EXPECT_EQ(s.dtype, "f64");
}

TEST(CaseSpec, WithoutADtypeMeansTheWorkloadsDtypes) {
  auto r = parse_case_spec("mc_pi_100", Catalog::builtin());  // a built-in gives none: f32
  ASSERT_TRUE(std::holds_alternative<std::vector<CaseSpec>>(r)) << std::get<std::string>(r);
  ASSERT_EQ(std::get<std::vector<CaseSpec>>(r).size(), 1u);
  EXPECT_EQ(std::get<std::vector<CaseSpec>>(r)[0].dtype, "f32");
  EXPECT_EQ(std::get<std::vector<CaseSpec>>(r)[0].n, 100);
  const auto file = std::filesystem::temp_directory_path() / "ema_scan.py";
  write_file_atomic(file, "IMPLEMENTATIONS = {}\n");
  auto added = Catalog::builtin().with_user_workload(file.string());
  ASSERT_TRUE(std::holds_alternative<Catalog>(added)) << std::get<std::string>(added);
  WorkloadInfo mine;
  mine.name = "ema_scan";
  mine.dtypes = {"f32", "f64"};
  const Catalog c = std::get<Catalog>(added).with_record(mine);
  r = parse_case_spec("ema_scan_1000", c);
  ASSERT_TRUE(std::holds_alternative<std::vector<CaseSpec>>(r)) << std::get<std::string>(r);
  const auto& specs = std::get<std::vector<CaseSpec>>(r);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].workload, "ema_scan");
  EXPECT_EQ(specs[0].dtype, "f32");
  EXPECT_EQ(specs[1].dtype, "f64");
  EXPECT_EQ(specs[1].n, 1000);
}

TEST(CaseSpec, RejectsBadSpecsWithHint) {
  for (const char* bad : {"matmul", "matmul_0", "matmul_x_f32", "matmul_512_f16", "conv_512_f32", "matmul_-1_f32"}) {
    auto r = parse_case_spec(bad, Catalog::builtin());
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << bad;
    EXPECT_NE(std::get<std::string>(r).find("e.g. matmul_512_f32"), std::string::npos);
  }
}

TEST(Plan, ExpandsUnionOfBlocksInOrder) {
  auto r = make_plan(Catalog::builtin(), two_blocks(), {});
  auto& cases = std::get<std::vector<Case>>(r);
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[0].id, "numpy_matmul_512_f32");
  EXPECT_EQ(cases[1].id, "numpy_matmul_1024_f32");
  EXPECT_EQ(cases[5].id, "numpy_mc_pi_1000_f64");
}

TEST(Plan, BackendFilter) {
  auto r = make_plan(Catalog::builtin(), two_blocks(), {{"python"}, {}, {}, {}, {}});
  auto& cases = std::get<std::vector<Case>>(r);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].id, "python_mc_pi_1000_f64");
}

TEST(Plan, CasesUseSuiteBackendsForThatWorkload) {
  Selection sel;
  sel.cases.push_back({"matmul", 256, "f64"});
  auto plan = make_plan(Catalog::builtin(), two_blocks(), sel);
  auto& cases = std::get<std::vector<Case>>(plan);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].id, "numpy_matmul_256_f64");
  EXPECT_EQ(cases[1].id, "jax_jit_cpu_matmul_256_f64");
}

TEST(Plan, APlanPastTheCaseLimitIsRefusedBeforeItIsExpanded) {
  Suite s;
  std::vector<long> sizes(1000);
  for (long i = 0; i < 1000; ++i) sizes[i] = i + 1;
  // 6 backends x 1000 sizes x 1000 workload copies: six million cases.
  s.matrix.push_back({{"numpy", "numba", "python", "jax_jit_cpu", "jax_eager_cpu", "tensorflow"},
                      std::vector<std::string>(1000, "matmul"), sizes, {"f32"}, {}, {}});
  auto r = make_plan(Catalog::builtin(), s, {});
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<std::string>(r).find("expands to 6000000 cases, more than jitbench plans (1000000)"),
            std::string::npos) << std::get<std::string>(r);
}

TEST(Plan, EmptySelectionIsAnError) {
  auto r = make_plan(Catalog::builtin(), two_blocks(), {{"numba"}, {}, {}, {}, {}});
  EXPECT_TRUE(std::holds_alternative<std::string>(r));
}

TEST(Plan, SeveralPoliciesGiveDistinctIds) {
  Suite s;
  s.matrix.push_back({{"numpy"}, {"matmul"}, {8}, {"f32"}, {}, {}});
  s.cache_policies = {CachePolicy::ColdCache, CachePolicy::WarmCache};
  auto plan = make_plan(Catalog::builtin(), s, {});
  auto& cases = std::get<std::vector<Case>>(plan);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_NE(cases[0].id, cases[1].id);
}

TEST(Plan, ABlocksOwnCachePolicyAndTheCommandLineOverride) {
  Suite s;
  s.matrix.push_back({{"numpy"}, {"matmul"}, {8}, {"f32"}, {}, {}});
  s.matrix.push_back({{"numba"}, {"matmul"}, {8}, {"f32"}, {CachePolicy::WarmCache, CachePolicy::WarmProcess}, {}});
  auto ids = [](const std::vector<Case>& cs) {
    std::vector<std::string> out;
    for (const auto& c : cs) out.push_back(c.id);
    return out;
  };
  EXPECT_EQ(ids(std::get<std::vector<Case>>(make_plan(Catalog::builtin(), s, {}))),
            (std::vector<std::string>{"numpy_matmul_8_f32", "numba_matmul_8_f32__warm_cache",
                                      "numba_matmul_8_f32__warm_process"}));
  Selection sel;
  sel.cache_policies = {CachePolicy::ColdCache};
  EXPECT_EQ(ids(std::get<std::vector<Case>>(make_plan(Catalog::builtin(), s, sel))),
            (std::vector<std::string>{"numpy_matmul_8_f32", "numba_matmul_8_f32"}));
}

}  // namespace
}  // namespace jitbench

namespace jitbench {
namespace {

TEST(Plan, EnvironmentsAreTheInnermostDimensionAndABlockMayNameItsOwn) {
  Suite s;
  s.environments = {{"old", {"jax==0.4.38"}, "", {}}, {"new", {"jax==0.10.2"}, "", {}}};
  s.matrix.push_back({{"jax_jit_cpu"}, {"matmul"}, {8, 16}, {"f32"}, {}, {}});
  s.matrix.push_back({{"numba"}, {"matmul"}, {8}, {"f32"}, {}, {"new"}});
  auto r = make_plan(Catalog::builtin(), s, {});
  ASSERT_TRUE(std::holds_alternative<std::vector<Case>>(r)) << std::get<std::string>(r);
  std::vector<std::string> ids;
  for (const auto& c : std::get<std::vector<Case>>(r)) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"jax_jit_cpu_matmul_8_f32__env-old", "jax_jit_cpu_matmul_8_f32__env-new",
                                           "jax_jit_cpu_matmul_16_f32__env-old", "jax_jit_cpu_matmul_16_f32__env-new",
                                           "numba_matmul_8_f32__env-new"}));
  EXPECT_EQ(std::get<std::vector<Case>>(r)[1].env, "new");
  EXPECT_EQ(without_environment("jax_jit_cpu_matmul_8_f32__env-old"), "jax_jit_cpu_matmul_8_f32");
  // The command line's environments replace the suite's.
  Selection sel;
  sel.environments = {{"only", {"jax==0.5.0"}, "", {}}};
  auto r2 = make_plan(Catalog::builtin(), s, sel);
  EXPECT_EQ(std::get<std::vector<Case>>(r2).front().id, "jax_jit_cpu_matmul_8_f32__env-only");
}

TEST(Plan, NamedCasesKeepTheEnvironmentsTheSuitePairsThemWith) {
  // releases.toml: JAX blocks in JAX environments, numba blocks in numba ones.
  Suite s;
  s.environments = {{"jax-a", {"jax==0.4.38"}, "", {}}, {"numba-a", {"numba==0.61.2"}, "", {}}};
  s.matrix.push_back({{"jax_jit_cpu"}, {"matmul"}, {8}, {"f32"}, {}, {"jax-a"}});
  s.matrix.push_back({{"numba"}, {"matmul"}, {8}, {"f32"}, {}, {"numba-a"}});
  Selection sel;
  sel.cases = std::get<std::vector<CaseSpec>>(parse_case_spec("matmul_8_f32", Catalog::builtin()));
  auto r = make_plan(Catalog::builtin(), s, sel);
  ASSERT_TRUE(std::holds_alternative<std::vector<Case>>(r)) << std::get<std::string>(r);
  std::vector<std::string> ids;
  for (const auto& c : std::get<std::vector<Case>>(r)) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"jax_jit_cpu_matmul_8_f32__env-jax-a", "numba_matmul_8_f32__env-numba-a"}));
}

}  // namespace
}  // namespace jitbench
