// What `run` decides before it starts a process: the plan its options make
// (the shards of one plan partition it and share its digest; a selection
// that plans nothing is the user's error), and how a recorded run's inputs
// are taken back (relative paths anchored where it was started, a copy that
// is not the file the run read refused).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "commands/commands.h"
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
