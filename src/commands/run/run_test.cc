// What `run` decides before it starts a process: the plan its options make
// (the shards of one plan partition it and share its digest; a selection
// that plans nothing is the user's error), and how a recorded run's inputs
// are taken back (relative paths anchored where it was started, a copy that
// is not the file the run read refused).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "commands/commands.h"
#include "results/index_sections.h"
#include "results/read.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

RunOptions numpy_matmul() {
  RunOptions o;
  o.cases = {"matmul_64_f32", "matmul_128_f32", "matmul_256_f32"};
  o.backends = {Catalog::builtin().default_baseline()->name};
  return o;
}

TEST(PlannedRun, TheShardsOfOnePlanPartitionItAndShareItsDigest) {
  const PlannedRun whole = make_planned_run(numpy_matmul());
  ASSERT_EQ(whole.cases.size(), 3u);
  EXPECT_FALSE(whole.shard.has_value());
  std::vector<std::string> seen;
  std::string digest;
  for (int k = 1; k <= 2; ++k) {
    RunOptions o = numpy_matmul();
    o.shard = ShardSpec{k, 2};
    const PlannedRun p = make_planned_run(o);
    ASSERT_TRUE(p.shard.has_value());
    EXPECT_EQ(p.full.size(), 3u);
    if (k == 1) digest = p.shard->plan_digest;
    EXPECT_EQ(p.shard->plan_digest, digest);
    for (const auto& c : p.cases) seen.push_back(c.id);
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::string> all;
  for (const auto& c : whole.cases) all.push_back(c.id);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(seen, all);  // each case in exactly one shard
}

TEST(PlannedRun, AShardHoldsEveryEnvironmentOfItsCases) {
  // One case in three environments is measured interleaved: splitting it across shards would break that.
  std::map<std::string, std::set<int>> shards_of;  // a case without its environment -> the shards it is in
  for (int k = 1; k <= 3; ++k) {
    RunOptions o = numpy_matmul();
    o.envs = {"e1:numpy", "e2:numpy", "e3:numpy"};
    o.shard = ShardSpec{k, 3};
    const PlannedRun p = make_planned_run(o);
    EXPECT_EQ(p.full.size(), 9u);
    for (const auto& c : p.cases) shards_of[without_environment(c.id)].insert(k);
  }
  ASSERT_EQ(shards_of.size(), 3u);
  for (const auto& [id, shards] : shards_of) EXPECT_EQ(shards.size(), 1u) << id;
}

TEST(ResumedRun, KeepsOnlyTheInterleavedGroupsWhoseCasesWereAllKept) {
  const InterleavedGroup done{{"m__env-a", "m__env-b"}, {}, {{0, 0}, {1, 0}}};
  const InterleavedGroup cut{{"n__env-a", "n__env-b"}, {}, {{0, 0}, {1, 0}, {0, 1}}};  // stopped mid-round
  const std::optional<std::vector<InterleavedGroup>> groups = std::vector{done, cut};
  // n__env-b was interrupted: measured again (with n__env-a kept, alone), the old order names stale logs.
  const auto kept = groups_of_kept_cases(groups, {"m__env-a", "m__env-b", "n__env-a"});
  ASSERT_TRUE(kept);
  EXPECT_EQ(*kept, std::vector{done});
  EXPECT_FALSE(groups_of_kept_cases(groups, {"m__env-a"}));
  EXPECT_FALSE(groups_of_kept_cases(std::nullopt, {"m__env-a"}));
}

TEST(PlannedRun, ASelectionThatPlansNothingIsTheUsersError) {
  RunOptions o = numpy_matmul();
  o.cases = {"nosuch_64_f32"};
  EXPECT_THROW(make_planned_run(o), UserError);
}

struct RecordedRun {
  TestDir made{"run-test"};
  const fs::path& dir = made.path();
  RunIndex index;
  RecordedRun() {
    fs::create_directories(dir / "inputs" / "workloads");
    write_file_atomic(dir / "inputs" / "workloads" / "mine.py", "IMPLEMENTATIONS = {}\n");
    index.cwd = "/home/u/project";
    index.inputs = {{"workload", "/home/u/project/wl/mine.py", "inputs/workloads/mine.py",
                     sha256_hex(std::string("IMPLEMENTATIONS = {}\n"))}};
  }
};

TEST(RecordedInputs, PathsAreAnchoredWhereTheRunStartedAndFilesReadFromTheirCopies) {
  RecordedRun r;
  RunOptions o;
  o.python = "venv/bin/python";
  o.find_links = {"wheels"};
  const InputCopies copies = use_recorded_inputs(r.index, r.dir, o);
  EXPECT_EQ(o.python, "/home/u/project/venv/bin/python");
  EXPECT_EQ(o.find_links, std::vector<std::string>{"/home/u/project/wheels"});
  EXPECT_EQ(copies.path("/home/u/project/wl/mine.py"), (r.dir / "inputs/workloads/mine.py").string());
  EXPECT_EQ(copies.path("wl/mine.py"), (r.dir / "inputs/workloads/mine.py").string());  // relative to the cwd
  EXPECT_EQ(copies.path("/elsewhere/mine.py"), "/elsewhere/mine.py");  // not an input of the run
}

TEST(RecordedInputs, ACopyThatIsNotTheFileTheRunReadIsRefused) {
  RecordedRun r;
  write_file_atomic(r.dir / "inputs" / "workloads" / "mine.py", "IMPLEMENTATIONS = {'numpy': None}\n");
  RunOptions o;
  try {
    use_recorded_inputs(r.index, r.dir, o);
    FAIL() << "an altered copy was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is not the file the run was started with"), std::string::npos) << e.what();
  }
  fs::remove(r.dir / "inputs" / "workloads" / "mine.py");
  EXPECT_THROW(use_recorded_inputs(r.index, r.dir, o), UserError);
}

}  // namespace
}  // namespace jitbench
