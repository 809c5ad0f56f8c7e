// What `jitbench merge` decides about its shards (commands/merge.h), on shards
// made in memory: which can be one run (and the one line that says why not),
// which environment file each shard's cases point at, the pinned environments
// listed once, and the command that measures a missing shard.
#include "commands/merge.h"

#include <gtest/gtest.h>

#include "cli/options.h"

namespace jitbench::merging {
namespace {

CaseResult measured(const std::string& id) {
  CaseResult c;
  c.c.id = id;
  c.cold_runs = 5;
  c.warm_runs = 1;
  c.warm_iters = 20;
  c.timeout_s = 600;
  return c;
}

// Shard k of a plan of n, holding these cases.
Shard shard(int k, int n, const std::vector<std::string>& ids) {
  Shard s;
  s.dir = "out-" + std::to_string(k);
  s.index = k;
  s.count = n;
  s.digest = "d1gest";
  s.label = std::to_string(k) + "/" + std::to_string(n);
  s.run.index.suite_name = "cpu";
  s.run.index.jitbench_version = "0.1.0";
  s.run.index.command = {"jitbench", "run", "--suite", "suites/cpu.toml", "--shard", s.label, "--out-dir", s.dir};
  s.run.environment.manifest = {{"host", {{"cpu", {{"model", "Some CPU"}, {"logical_cores", 8}}}}}};
  for (const auto& id : ids) s.run.cases.push_back(measured(id));
  return s;
}

// The one line check_consistent refuses with ("" when it accepts).
std::string refusal(const std::vector<Shard>& shards) {
  try {
    check_consistent(shards);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(MergeChecks, ShardsOfOnePlanAreOneRun) {
  EXPECT_EQ(refusal({shard(1, 2, {"a", "b"}), shard(2, 2, {"c"})}), "");
}

TEST(MergeChecks, ShardsOfAnotherSuiteVersionOrPlanAreRefusedNamingBoth) {
  auto other_suite = shard(2, 2, {"c"});
  other_suite.run.index.suite_name = "gpu";
  const auto suite = refusal({shard(1, 2, {"a"}), other_suite});
  EXPECT_TRUE(has(suite, "shards of different suites") && has(suite, "out-1") && has(suite, "out-2")) << suite;
  auto other_version = shard(2, 2, {"c"});
  other_version.run.index.jitbench_version = "0.2.0";
  EXPECT_TRUE(has(refusal({shard(1, 2, {"a"}), other_version}), "different jitbench versions"));
  auto other_plan = shard(2, 2, {"c"});
  other_plan.digest = "another";
  EXPECT_TRUE(has(refusal({shard(1, 2, {"a"}), other_plan}), "shards of different plans"));
  EXPECT_TRUE(has(refusal({shard(1, 2, {"a"}), shard(2, 3, {"c"})}), "shards of different plans"));  // 2 vs 3 shards
}

TEST(MergeChecks, AShardOrACaseGivenTwiceIsRefused) {
  EXPECT_TRUE(has(refusal({shard(1, 2, {"a"}), shard(1, 2, {"b"})}), "shard 1/2 given twice"));
  EXPECT_TRUE(has(refusal({shard(1, 2, {"a"}), shard(2, 2, {"a"})}), "case 'a' is in two shards"));
}

TEST(MergeChecks, ShardsMeasuredWithOtherSettingsAreRefused) {
  auto more_runs = shard(2, 2, {"c"});
  more_runs.run.cases[0].cold_runs = 10;
  EXPECT_TRUE(has(refusal({shard(1, 2, {"a"}), more_runs}), "shards measured with different settings"));
  auto other_seed = shard(2, 2, {"c"});
  other_seed.run.cases[0].seed = 7;
  EXPECT_NE(settings_of(other_seed.run.cases[0]), settings_of(measured("a")));
  EXPECT_EQ(settings_of(measured("x")), settings_of(measured("y")));  // the case itself is no setting
}

TEST(MergeChecks, ShardsOfDifferentInputFilesAreRefused) {
  auto a = shard(1, 2, {"a"}), b = shard(2, 2, {"c"});
  a.run.index.inputs = {{"suite", "/home/u/cpu.toml", "inputs/cpu.toml", "aaa"}};
  b.run.index.inputs = {{"suite", "/home/u/cpu.toml", "inputs/cpu.toml", "bbb"}};
  EXPECT_TRUE(has(refusal({a, b}), "differs between shards"));
  b.run.index.inputs = {{"suite", "/home/u/cpu.toml", "inputs/cpu.toml", "aaa"}};
  EXPECT_EQ(refusal({a, b}), "");
  b.run.index.inputs.push_back({"workload", "/home/u/w.py", "inputs/workloads/w.py", "ccc"});
  EXPECT_TRUE(has(refusal({a, b}), "different input files"));
}

RecordedEnvironment environment(const std::string& name, bool ok, const std::string& hash) {
  RecordedEnvironment e;
  e.name = name;
  e.ok = ok;
  if (ok) e.file = "environments/env-" + name + ".json";
  e.build = {{"hash", hash}};
  return e;
}

TEST(MergeChecks, APinnedEnvironmentIsOneBuildInEveryShard) {
  auto a = shard(1, 2, {"a"}), b = shard(2, 2, {"c"});
  a.environments = {environment("old", true, "h1")};
  b.environments = {environment("old", true, "h2")};
  a.listed = b.listed = {"environments/env-old.json"};
  EXPECT_TRUE(has(refusal({a, b}), "environment 'old' is not the same"));
  b.environments = {environment("old", false, "")};  // not built there: nothing to compare
  EXPECT_EQ(refusal({a, b}), "");
  b.listed.clear();
  b.environments = {environment("old", true, "h1")};  // its manifest not in the shard's index
  EXPECT_TRUE(has(refusal({a, b}), "listed in the shard's index"));
}

TEST(MergeChecks, AnEnvironmentBuiltInAnyShardIsListedOnceAsBuilt) {
  auto a = shard(1, 2, {"a"}), b = shard(2, 2, {"c"});
  a.environments = {environment("old", false, ""), environment("new", true, "n")};
  b.environments = {environment("old", true, "o")};
  const auto all = union_of_environments({a, b});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "new");
  EXPECT_EQ(all[1].name, "old");
  EXPECT_TRUE(all[1].ok);
}

TEST(MergeChecks, OneEnvironmentFileWhenTheMachinesAgreeElseOnePerDistinctMachine) {
  auto a = shard(1, 3, {"a"}), b = shard(2, 3, {"b"}), c = shard(3, 3, {"c"});
  std::size_t distinct = 0;
  EXPECT_EQ(group_environments({a, b, c}, &distinct),
            (std::vector<std::string>{"environment.json", "environment.json", "environment.json"}));
  EXPECT_EQ(distinct, 1u);
  b.run.environment.manifest["host"]["cpu"]["model"] = "Another CPU";
  EXPECT_EQ(group_environments({a, b, c}, &distinct),
            (std::vector<std::string>{"environments/env-1.json", "environments/env-2.json", "environments/env-1.json"}));
  EXPECT_EQ(distinct, 2u);
}

TEST(MergeChecks, TheCommandForAMissingShardIsTheFirstShardsForThatShard) {
  EXPECT_EQ(command_for_shard(shard(1, 3, {}), 2, "out-2"),
            "jitbench run --suite suites/cpu.toml --shard 2/3 --out-dir out-2");
  auto equals = shard(1, 3, {});
  equals.run.index.command = {"jitbench", "run", "--shard=1/3", "--out-dir=out-1", "--cold-runs", "5"};
  EXPECT_EQ(command_for_shard(equals, 3, "elsewhere"), "jitbench run --shard=3/3 --out-dir=elsewhere --cold-runs 5");
}

}  // namespace
}  // namespace jitbench::merging
