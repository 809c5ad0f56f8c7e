// Every artifact of a run, rebuilt from recorded worker processes, must equal
// the golden copy byte for byte: the pipeline after the processes (classify ->
// results -> analysis -> export) is deterministic, and a refactoring of it
// changes nothing a user reads unless a golden file is updated on purpose
// (JITBENCH_UPDATE_GOLDEN=1 rewrites them; the diff then shows what changed).
//
// Fixtures (tests/data/golden/): default.workers.jsonl, recorded with
//   JITBENCH_RECORD_WORKERS=default.workers.jsonl build/jitbench run --deterministic --cold-runs 2 --warm-iters 5
// and the environment manifest of that run; expected/ holds the artifacts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "artifacts/write_run.h"
#include "config/suite.h"
#include "plan/plan.h"
#include "run/case_runner.h"
#include "run/replay.h"
#include "util/fs.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

const fs::path kData = fs::path(JITBENCH_TEST_DATA) / "golden";
// Case files hold the absolute cache path the workers were given: a fixed one
// keeps them the same on every machine.
const fs::path kOut = "/tmp/jitbench-golden-test";

std::vector<fs::path> artifact_files(const fs::path& root) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (const auto rel = fs::relative(e.path(), root);
        e.is_regular_file() && rel.begin()->string() != "cache" && rel != kLockFile)  // the lock is no artifact
      out.push_back(rel);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Golden, DefaultSuiteArtifactsAreUnchanged) {
  // The workers' environment is recorded in every case: nothing inherited may reach it.
  for (const char* k : {"PYTHONPATH", "XLA_FLAGS", "TF_XLA_FLAGS"}) ::unsetenv(k);
  fs::remove_all(kOut);
  auto prepared = OutDir::prepare(kOut);
  ASSERT_TRUE(std::holds_alternative<OutDir>(prepared));
  const OutDir out = std::get<OutDir>(prepared);

  WorkerSetup setup;
  setup.python = "python3";
  setup.worker_dir = "/golden/worker";
  setup.native_worker = "/golden/jitbench-native-worker";
  setup.out_dir = out.root();
  setup.cold_runs = 2;
  setup.warm_iters = 5;
  setup.deterministic = true;
  const auto plan = std::get<std::vector<Case>>(make_plan(Catalog::builtin(), default_suite(), {}));
  ReplayLauncher replay(kData / "default.workers.jsonl");
  CaseRunner runner(replay, setup);
  std::vector<CaseResult> results;
  for (const auto& c : plan) results.push_back(runner.run(c));
  EXPECT_EQ(replay.remaining(), 0u);

  RunHeader h;
  h.deterministic = true;
  h.argv = {"jitbench", "run", "--cold-runs", "2", "--warm-iters", "5"};
  h.info.suite_name = "default";
  h.info.suite_source = "<embedded default.toml>";
  h.info.command = "jitbench run --cold-runs 2 --warm-iters 5";
  h.info.n_planned = plan.size();
  h.sections.options = RecordedOptions{};  // the command's options, typed (index v5)
  h.sections.options->cold_runs = 2;
  h.sections.options->warm_iters = 5;
  const auto manifest = read_file(kData / "environment.json");
  h.info.environment = parse_environment(nlohmann::json::parse(manifest));
  out.write_text("environment.json", manifest);
  write_run_artifacts(out, h, results, true);

  const fs::path expected = kData / "expected";
  if (const char* u = std::getenv("JITBENCH_UPDATE_GOLDEN"); u && *u) {
    fs::remove_all(expected);
    for (const auto& rel : artifact_files(kOut)) {
      fs::create_directories((expected / rel).parent_path());
      fs::copy_file(kOut / rel, expected / rel);
    }
    GTEST_SKIP() << "golden files rewritten in " << expected;
  }
  const auto got = artifact_files(kOut), want = artifact_files(expected);
  EXPECT_EQ(got, want);
  for (const auto& rel : want)
    if (fs::exists(kOut / rel)) {
      EXPECT_EQ(read_file(kOut / rel), read_file(expected / rel)) << rel;
    }
}

// summary.md of the default suite reads on a screen: the run's answer first,
// no table row wider than 120 characters, and no interval from too few runs.
TEST(Golden, SummaryFitsAScreen) {
  const auto md = read_file(kData / "expected" / "summary.md");
  std::size_t line_no = 0, widest = 0;
  std::string widest_line;
  for (std::size_t at = 0, next; at < md.size(); at = next + 1) {
    next = md.find('\n', at);
    if (next == std::string::npos) next = md.size();
    const auto line = md.substr(at, next - at);
    ++line_no;
    std::size_t w = 0;
    for (unsigned char ch : line) w += (ch & 0xC0) != 0x80;
    if (line.starts_with("|") && w > widest) widest = w, widest_line = line;
  }
  EXPECT_LE(widest, 120u) << widest_line;
  const auto glance = md.find("## At a glance"), first_section = md.find("\n## `");
  ASSERT_NE(glance, std::string::npos);
  EXPECT_LT(glance, first_section);
  EXPECT_NE(md.find("gpu_unavailable"), std::string::npos);
  EXPECT_LT(md.find("gpu_unavailable"), first_section);  // what failed, and why, on the first screen
  EXPECT_EQ(md.find(", 95% CI "), std::string::npos);     // two cold runs per case: ranges, never intervals
  EXPECT_NE(md.find("n = 2, range "), std::string::npos);
  EXPECT_EQ(md.find("Matmul precision | "), std::string::npos);  // one precision per workload: a line, not a column
}

}  // namespace
}  // namespace jitbench
