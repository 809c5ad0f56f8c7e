#include "commands/common/pinned.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/build_info.h"
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
  run.index.jitbench_version = jitbench_version();
  run.environment.manifest = {{"python", {{"distributions", nlohmann::json::object()}}}};
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

TEST(Pinned, WhatIsKnownBeforeMeasuringIsRefusedBeforeMeasuring) {
  TestDir dir("pinned-before");
  auto other = base_run(dir.path(), std::vector<LocalModule>{}, true);
  other.index.jitbench_version = "0.0.1";
  EXPECT_NE(why_base_code_not_pinned(other, {"numpy_f_1_f32"}).value_or("").find("jitbench 0.0.1"), std::string::npos);
  auto unlisted = base_run(dir.path(), std::vector<LocalModule>{}, true);
  unlisted.environment.manifest = nlohmann::json::object();  // user code, its distributions never listed
  EXPECT_NE(why_code_not_pinned(unlisted, {"numpy_f_1_f32"}, "NEW").value_or("").find("cannot tell whether the "
                                                                                       "packages NEW's code"),
            std::string::npos);
  unlisted.cases[0].c.env = "pinned";  // in a pinned environment: its spec holds them
  EXPECT_EQ(why_code_not_pinned(unlisted, {"numpy_f_1_f32"}, "NEW"), std::nullopt);
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

TEST(Pinned, TheReMeasuredSidesMustHaveRunWithTheirPackagesSettingsAndJitbench) {
  TestDir dir("pinned-env");
  auto base = base_run(dir.path(), std::nullopt, false), again = base;
  base.environment.manifest = {{"python", {{"version", "3.12.1"}, {"packages", {{"numpy", "2.0.0"}}}}},
                               {"env", {{"OMP_NUM_THREADS", "1"}}}};
  again.environment.manifest = base.environment.manifest;
  const auto same = base;  // NEW and its re-measurement, alike
  EXPECT_EQ(why_environment_changed(base, again, same, same), std::nullopt);
  again.environment.manifest["python"]["packages"]["numpy"] = "2.1.0";
  auto why = why_environment_changed(base, again, same, same);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("numpy: 2.0.0 vs 2.1.0"), std::string::npos) << *why;
  // NEW's side is held to its own run: a re-measured NEW without the thread setting NEW ran with.
  auto next_again = same;
  next_again.environment.manifest["env"].erase("OMP_NUM_THREADS");
  why = why_environment_changed(base, base, same, next_again);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("NEW"), std::string::npos) << *why;
  EXPECT_NE(why->find("OMP_NUM_THREADS"), std::string::npos) << *why;
  // Every installed distribution, where both list them: a user package reinstalled at the same version.
  auto with = base;
  with.environment.manifest["python"]["distributions"] = {{"mypkg", "0.1.0"}};
  with.environment.manifest["python"]["distribution_records"] = {{"mypkg", "aaa"}};
  auto changed = with;
  changed.environment.manifest["python"]["distribution_records"]["mypkg"] = "bbb";
  EXPECT_EQ(why_environment_changed(with, with, same, same), std::nullopt);
  EXPECT_NE(why_environment_changed(with, changed, same, same), std::nullopt);
  // Not where things are found, nor jitbench's own distribution (its version is compared apart).
  auto found_elsewhere = with;
  found_elsewhere.environment.manifest["env"]["PYTHONPATH"] = "/somewhere";
  found_elsewhere.environment.manifest["env"]["CUDA_VISIBLE_DEVICES"] = "3";
  found_elsewhere.environment.manifest["python"]["distributions"]["jitbench"] = "9.9";
  EXPECT_EQ(why_environment_changed(with, found_elsewhere, same, same), std::nullopt);
  // Every case in a pinned environment: rebuilt from its recorded spec, this interpreter does not matter.
  for (auto& c : again.cases) c.c.env = "old";
  EXPECT_EQ(why_environment_changed(base, again, same, same), std::nullopt);
  again.index.jitbench_version = "2.0";
  EXPECT_NE(why_environment_changed(base, again, same, same), std::nullopt);
}

}  // namespace
}  // namespace jitbench
