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

#include "cli/recorded_options.h"
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

// --resume, replicate and compare --remeasure measure a run again from the
// typed options its index keeps (v5), never from its command line: a command
// that says otherwise is not read.
TEST(RecordedOptions, ARunIsMeasuredAgainFromItsTypedOptionsNotItsCommand) {
  RunOptions given = numpy_matmul();
  given.cold_runs = 3;
  given.shard = ShardSpec{2, 3};
  given.ceilings = CeilingsMode::Off;
  given.cache_policies = {CachePolicy::WarmProcess};
  given.kept_files = {{"/home/u/mine.py", "mine.py", "/tmp/jitbench-measure-1/targets/mine.py"}};
  given.out_dir = "elsewhere";
  RunIndex x;
  x.command = {"jitbench", "run", "--backends", "numba", "--cold-runs", "9"};
  x.options = recorded_options(given);
  const RunOptions again = recorded_run_options(x);
  EXPECT_EQ(again.backends, given.backends);
  EXPECT_EQ(again.cases, given.cases);
  EXPECT_EQ(again.cold_runs, 3);
  ASSERT_TRUE(again.shard);
  EXPECT_EQ(std::pair(again.shard->index, again.shard->count), std::pair(2, 3));
  EXPECT_EQ(again.ceilings, CeilingsMode::Off);
  EXPECT_EQ(again.cache_policies, given.cache_policies);
  ASSERT_EQ(again.kept_files.size(), 1u);  // read back from the run's own copy, not the one measure made it from
  EXPECT_EQ(std::tuple(again.kept_files[0].source, again.kept_files[0].file, again.kept_files[0].copy),
            std::tuple(std::string("/home/u/mine.py"), std::string("mine.py"), std::string()));
  EXPECT_TRUE(again.out_dir.empty());  // where it writes is the caller's: never the recorded one
  EXPECT_EQ(recorded_options(again), *x.options);
}

// An index written before the options were kept (v4 and earlier) is measured
// again from its command, as it was; a `measure` run's workload from its inputs.
TEST(RecordedOptions, AnIndexBeforeTheOptionsIsMeasuredAgainFromItsCommand) {
  RunIndex x;
  x.command = {"jitbench", "run", "--backends", "numba", "--cold-runs", "4"};
  RunOptions again = recorded_run_options(x);
  EXPECT_EQ(again.backends, std::vector<std::string>{"numba"});
  EXPECT_EQ(again.cold_runs, 4);
  x.command = {"jitbench", "measure", "mine.py:step"};
  x.inputs = {{"workload", "/tmp/m/workloads/step.py", "inputs/workloads/step.py", std::string(64, 'a')},
              {"target", "/home/u/mine.py", "inputs/targets/mine.py", std::string(64, 'b')}};
  again = recorded_run_options(x);
  EXPECT_EQ(again.workload_paths, std::vector<std::string>{"/tmp/m/workloads/step.py"});
  ASSERT_EQ(again.kept_files.size(), 1u);
  EXPECT_EQ(again.kept_files[0].file, "mine.py");
}

}  // namespace
}  // namespace jitbench
