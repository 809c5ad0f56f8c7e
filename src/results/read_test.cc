// Reading an artifact back into the model loses nothing: every case file of the
// golden run reads back and is written again byte for byte.
#include "results/read.h"

#include <gtest/gtest.h>

#include "export/json/case_json.h"
#include "export/json/json_util.h"
#include "util/fs.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

const fs::path kGolden = fs::path(JITBENCH_TEST_DATA) / "golden" / "expected";

TEST(Read, EveryGoldenCaseRoundTrips) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(kGolden / "cases")) {
    auto r = read_case(e.path());
    ASSERT_TRUE(std::holds_alternative<CaseResult>(r)) << std::get<std::string>(r);
    EXPECT_EQ(json_text(case_json(std::get<CaseResult>(r))), read_file(e.path())) << e.path();
    ++n;
  }
  EXPECT_GT(n, 10);
}

TEST(Read, TheWholeRunAndItsEnvironment) {
  auto r = read_run(kGolden);
  ASSERT_TRUE(std::holds_alternative<LoadedRun>(r)) << std::get<std::string>(r);
  const auto& run = std::get<LoadedRun>(r);
  EXPECT_EQ(run.cases.size(), run.index.cases.size());
  EXPECT_EQ(run.index.suite_name, "default");
  EXPECT_FALSE(run.environment.python_version.empty());
  EXPECT_FALSE(run.index.files.empty());
}

// A run's interference figures read back as written; a case file from before
// jitbench.case.v5 has none, and its runs read back as not reported.
TEST(Read, InterferenceRoundTripsAndOlderFilesHaveNone) {
  const fs::path dir = fs::temp_directory_path() / "jitbench-read-interference-test";
  fs::create_directories(dir);
  auto r = read_case(kGolden / "cases" / "numpy_matmul_512_f32.json");
  ASSERT_TRUE(std::holds_alternative<CaseResult>(r));
  auto c = std::get<CaseResult>(std::move(r));
  ASSERT_FALSE(c.cold.empty());
  c.cold[0].interference = Interference{1.25, 0.5, 42, 0.75, 1.0, 0.5, std::nullopt, 2, true};
  const auto text = json_text(case_json(c));
  write_file_atomic(dir / "v5.json", text);
  auto back = read_case(dir / "v5.json");
  ASSERT_TRUE(std::holds_alternative<CaseResult>(back)) << std::get<std::string>(back);
  const auto& x = std::get<CaseResult>(back).cold[0].interference;
  ASSERT_TRUE(x);
  EXPECT_EQ(x->nivcsw, 42);
  EXPECT_EQ(x->load_start, 0.5);
  EXPECT_FALSE(x->load_end);
  EXPECT_TRUE(x->interfered);
  EXPECT_EQ(json_text(case_json(std::get<CaseResult>(back))), text);
  EXPECT_FALSE(std::get<CaseResult>(back).cold[0].pre_exec_rss_kib);  // the golden run predates it
  c.cold[0].pre_exec_rss_kib = 8192;
  write_file_atomic(dir / "hwm.json", json_text(case_json(c)));
  auto hwm = read_case(dir / "hwm.json");
  ASSERT_TRUE(std::holds_alternative<CaseResult>(hwm)) << std::get<std::string>(hwm);
  EXPECT_EQ(std::get<CaseResult>(hwm).cold[0].pre_exec_rss_kib, 8192);
  // More than the wait4 peak that holds it: an edited file, one line naming it.
  c.cold[0].pre_exec_rss_kib = c.cold[0].max_rss_kib + 1;
  write_file_atomic(dir / "edited.json", json_text(case_json(c)));
  auto edited = read_case(dir / "edited.json");
  ASSERT_TRUE(std::holds_alternative<std::string>(edited));
  EXPECT_NE(std::get<std::string>(edited).find("edited.json: rusage.pre_exec_rss_kib"), std::string::npos)
      << std::get<std::string>(edited);
  auto old = nlohmann::json::parse(text);
  old["schema_version"] = "jitbench.case.v4";
  for (auto& run : old["cold"]["runs"]) run.erase("interference");
  write_file_atomic(dir / "v4.json", old.dump());
  auto v4 = read_case(dir / "v4.json");
  ASSERT_TRUE(std::holds_alternative<CaseResult>(v4)) << std::get<std::string>(v4);
  EXPECT_FALSE(std::get<CaseResult>(v4).cold[0].interference);
  fs::remove_all(dir);
}

TEST(Read, ABrokenCaseFileIsOneLineNamingTheFile) {
  const fs::path dir = fs::temp_directory_path() / "jitbench-read-test";
  fs::create_directories(dir);
  write_file_atomic(dir / "bad.json", R"({"schema_version": "jitbench.case.v2", "status": "maybe"})");
  auto r = read_case(dir / "bad.json");
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<std::string>(r).find("bad.json"), std::string::npos);
  write_file_atomic(dir / "worse.json", "not json");
  EXPECT_TRUE(std::holds_alternative<std::string>(read_case(dir / "worse.json")));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace jitbench

namespace jitbench {
namespace {
TEST(EnvironmentDifferences, HardwareAndPackagesCountTheHostNameAndLoadDoNot) {
  const nlohmann::json a = {{"host", {{"hostname", "a"}, {"arch", "x86_64"}, {"load_avg", {1, 1, 1}},
                                      {"cpu", {{"model", "EPYC"}, {"logical_cores", 2}}}}},
                            {"python", {{"version", "3.11.7"}, {"packages", {{"numba", "0.60.0"}, {"jax", "0.4.30"}}}}}};
  nlohmann::json b = a;
  b["host"]["hostname"] = "b";
  b["host"]["load_avg"] = {3, 3, 3};
  EXPECT_TRUE(environment_differences(a, b).empty());
  b["python"]["packages"]["numba"] = "0.61.0";
  b["python"]["packages"].erase("jax");
  b["host"]["cpu"]["logical_cores"] = 16;
  const auto d = environment_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0], "logical cores: '2' vs '16'");
  EXPECT_EQ(d[1], "jax: 0.4.30 vs absent");
  EXPECT_EQ(d[2], "numba: 0.60.0 vs 0.61.0");
  // The workers' CPUs count once both manifests record them (v2): pinned to one CPU is not all of them.
  nlohmann::json pinned = a, inherited = a;
  pinned["affinity"] = {{"pinned", true}, {"cpus", "1"}};
  EXPECT_TRUE(environment_differences(a, pinned).empty());
  inherited["affinity"] = {{"pinned", false}, {"cpus", "0-1"}};
  EXPECT_EQ(environment_differences(inherited, pinned),
            std::vector<std::string>{"worker CPUs: '0-1' vs '1 (pinned)'"});
}
}  // namespace
}  // namespace jitbench
