#include "commands/common/pinned.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/sha256.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// BASE: one case, one cold process that loaded `modules` (nullopt: not recorded).
LoadedRun base_run(const std::filesystem::path& dir, std::optional<std::vector<LocalModule>> modules, bool user) {
  LoadedRun run;
  run.dir = dir;
  run.index.jitbench_version = "1.0";
  run.index.command = {"jitbench", user ? "measure" : "run"};
  CaseResult c;
  c.c.id = "numpy_f_1_f32";
  RunRecord r;
  r.worker.raw = {{"type", "result"}};
  r.worker.local_modules = std::move(modules);
  c.cold.push_back(r);
  run.cases.push_back(c);
  return run;
}

TEST(Pinned, AUserTargetIsPinnedOnlyWhileItsLocalModulesAreUnchanged) {
  TestDir dir("pinned");
  const auto helper = dir.path() / "helper.py";
  write(helper, "X = 1\n");
  auto base = base_run(dir.path(), std::vector<LocalModule>{{helper.string(), sha256_file(helper)}}, true);
  EXPECT_EQ(why_base_code_not_pinned(base, {"numpy_f_1_f32"}), std::nullopt);
  write(helper, "X = 2\n");
  EXPECT_EQ(why_base_code_not_pinned(base, {"numpy_f_1_f32"}),
            "its target imports " + helper.string() + ", which changed since BASE was measured");
  std::filesystem::remove(helper);  // gone counts as changed
  EXPECT_NE(why_base_code_not_pinned(base, {"numpy_f_1_f32"}), std::nullopt);
}

TEST(Pinned, ARunFromBeforeLocalImportsWereRecordedCannotTellForUserCodeOnly) {
  TestDir dir("pinned-old");
  EXPECT_EQ(why_base_code_not_pinned(base_run(dir.path(), std::nullopt, true), {"numpy_f_1_f32"}),
            "cannot tell whether BASE's code is pinned (measured before jitbench recorded local imports)");
  // jitbench's own workloads: pinned by jitbench's version (checked on the re-measured side).
  EXPECT_EQ(why_base_code_not_pinned(base_run(dir.path(), std::nullopt, false), {"numpy_f_1_f32"}), std::nullopt);
}

TEST(Pinned, AKeptCopyThatChangedOrAMergedRunIsNotPinned) {
  TestDir dir("pinned-copy");
  write(dir.path() / "inputs" / "workloads" / "f.py", "def f(): pass\n");
  auto base = base_run(dir.path(), std::vector<LocalModule>{}, true);
  base.index.inputs.push_back({"workload", "/src/f.py", "inputs/workloads/f.py",
                               sha256_file(dir.path() / "inputs" / "workloads" / "f.py")});
  EXPECT_EQ(why_base_code_not_pinned(base, {"numpy_f_1_f32"}), std::nullopt);
  write(dir.path() / "inputs" / "workloads" / "f.py", "def f(): return 1\n");
  const auto why = why_base_code_not_pinned(base, {"numpy_f_1_f32"});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("its kept copy of /src/f.py"), std::string::npos) << *why;
  base.index.merged.emplace();
  EXPECT_NE(why_base_code_not_pinned(base, {"numpy_f_1_f32"}), std::nullopt);
}

TEST(Pinned, TheReMeasuredSideMustHaveRunWithBasesPackagesAndJitbench) {
  TestDir dir("pinned-env");
  auto base = base_run(dir.path(), std::nullopt, false), again = base;
  base.environment.manifest = {{"python", {{"version", "3.12.1"}, {"packages", {{"numpy", "2.0.0"}}}}}};
  again.environment.manifest = base.environment.manifest;
  EXPECT_EQ(why_environment_changed(base, again), std::nullopt);
  again.environment.manifest["python"]["packages"]["numpy"] = "2.1.0";
  const auto why = why_environment_changed(base, again);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("numpy: 2.0.0 vs 2.1.0"), std::string::npos) << *why;
  // Every case in a pinned environment: rebuilt from its recorded spec, this interpreter does not matter.
  for (auto& c : again.cases) c.c.env = "old";
  EXPECT_EQ(why_environment_changed(base, again), std::nullopt);
  again.index.jitbench_version = "2.0";
  EXPECT_NE(why_environment_changed(base, again), std::nullopt);
}

}  // namespace
}  // namespace jitbench
