// Where a phase's change went: an item is named alone only when its share of
// the change is at least half, its interval's lower end included; else the two
// or three that hold it together; shares without an interval below the
// Sampling rule's minimum of processes, and the verdict says so.
#include "compare/anatomy_verdict.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "compare/anatomy_delta.h"
#include "export/docs/anatomy_delta_text.h"

namespace jitbench::compare {
namespace {
using Path = std::vector<std::string>;

// One anatomy process: each path's wall time (another thread's item: its thread group after a '@').
RunRecord process(const std::map<std::string, double>& items) {
  RunRecord r;
  r.mode = RunMode::Anatomy;
  r.status = Status::Ok;
  for (const auto& [key, s] : items) {
    AnatomyItem it;
    const auto at = key.find('@');
    const std::string path = key.substr(0, at);
    for (std::size_t from = 0;;) {
      const auto to = path.find('/', from);
      it.path.push_back(path.substr(from, to - from));
      if (to == std::string::npos) break;
      from = to + 1;
    }
    it.s = s;
    if (at != std::string::npos) it.thread = key.substr(at + 1), it.thread_s = s;
    r.worker.anatomy.push_back(it);
  }
  return r;
}

// n processes of one side: each item's time times (1 + spread × k) for process k (k = 0..n-1, centred).
std::vector<RunRecord> side(int n, const std::map<std::string, double>& items,
                            const std::map<std::string, double>& spread = {}) {
  std::vector<RunRecord> out;
  for (int k = 0; k < n; ++k) {
    std::map<std::string, double> mine;
    for (const auto& [key, s] : items) {
      const auto w = spread.find(key);
      mine[key] = s * (1.0 + (w == spread.end() ? 0.002 : w->second) * (k - (n - 1) / 2.0));
    }
    out.push_back(process(mine));
  }
  return out;
}

std::vector<Path> named(const std::vector<NamedItem>& xs) {
  std::vector<Path> out;
  for (const auto& x : xs) out.push_back(x.item->path);
  return out;
}

TEST(AnatomyVerdict, AChildThatHoldsMostOfTheChangeIsNamedAloneWithItsInterval) {
  const auto ds = anatomy_deltas(side(6, {{"compile", 1.0}, {"compile/A", 0.5}, {"compile/B", 0.3}}),
                                 side(6, {{"compile", 2.0}, {"compile/A", 1.4}, {"compile/B", 0.35}}), 0);
  const auto v = anatomy_verdict(ds);
  EXPECT_TRUE(v.intervals);
  EXPECT_EQ(named(v.alone), (std::vector<Path>{{"compile", "A"}}));
  ASSERT_TRUE(v.alone[0].share.lo && v.alone[0].share.hi);
  EXPECT_NEAR(v.alone[0].share.share, 0.9, 1e-9);
  EXPECT_LE(*v.alone[0].share.lo, 0.9);
  EXPECT_GE(*v.alone[0].share.hi, 0.9);
  EXPECT_GT(*v.alone[0].share.lo, 0.5);
  EXPECT_TRUE(v.together.empty());
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find(", of which A +900.00 ms (×2.80 ["), std::string::npos) << line;
  EXPECT_NE(line.find("]), 90% ["), std::string::npos) << line;
  EXPECT_EQ(line.find("without an interval"), std::string::npos) << line;
}

// Two children that split the change: neither holds half, both are named, with their shares.
TEST(AnatomyVerdict, TwoChildrenThatSplitTheChangeAreBothNamed) {
  const auto ds = anatomy_deltas(
      side(6, {{"compile", 1.0}, {"compile/A", 0.3}, {"compile/B", 0.3}, {"compile/C", 0.1}}),
      side(6, {{"compile", 2.0}, {"compile/A", 0.75}, {"compile/B", 0.74}, {"compile/C", 0.15}}), 0);
  const auto v = anatomy_verdict(ds);
  EXPECT_TRUE(v.alone.empty());
  EXPECT_EQ(named(v.together), (std::vector<Path>{{"compile", "A"}, {"compile", "B"}}));
  ASSERT_TRUE(v.together_share && v.together_share->lo);
  EXPECT_NEAR(v.together_share->share, 0.89, 1e-9);
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find(", of which together 89% ["), std::string::npos) << line;
  EXPECT_NE(line.find(": A +450.00 ms (×2.50 ["), std::string::npos) << line;
  EXPECT_NE(line.find("]), 45% ["), std::string::npos) << line;
  EXPECT_NE(line.find("; and B +440.00 ms"), std::string::npos) << line;
  EXPECT_EQ(line.find(" C "), std::string::npos) << line;
}

// A child whose point share is above half but whose processes spread so that
// its interval reaches below half is not named alone: the noise would pick it
// one run and not the next. With its neighbour it holds the change.
TEST(AnatomyVerdict, AShareNearHalfWithSpreadIsNotNamedAlone) {
  const std::map<std::string, double> spread{{"compile/A", 0.08}, {"compile/B", 0.08}};
  const auto ds = anatomy_deltas(side(9, {{"compile", 1.0}, {"compile/A", 0.3}, {"compile/B", 0.3}}),
                                 side(9, {{"compile", 2.0}, {"compile/A", 0.86}, {"compile/B", 0.7}}, spread), 0);
  const auto v = anatomy_verdict(ds);
  EXPECT_TRUE(v.alone.empty()) << anatomy_delta_line(ds);
  ASSERT_FALSE(v.together.empty()) << anatomy_delta_line(ds);
  EXPECT_GT(v.together[0].share.share, 0.5);  // the point estimate alone would have named it
  EXPECT_LT(*v.together[0].share.lo, 0.5);
  EXPECT_EQ(named(v.together), (std::vector<Path>{{"compile", "A"}, {"compile", "B"}}));
}

TEST(AnatomyVerdict, BelowTheSamplingMinimumSharesHaveNoIntervalAndTheLineSaysSo) {
  const auto ds = anatomy_deltas(side(3, {{"compile", 1.0}, {"compile/A", 0.5}}),
                                 side(3, {{"compile", 2.0}, {"compile/A", 1.1}}), 0);
  const auto v = anatomy_verdict(ds);
  EXPECT_FALSE(v.intervals);
  EXPECT_EQ(named(v.alone), (std::vector<Path>{{"compile", "A"}}));
  EXPECT_FALSE(v.alone[0].share.lo);
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find(", 60% of the change (shares without an interval: fewer than 6 anatomy processes a side)"),
            std::string::npos)
      << line;
}

// A group member is followed down while one item below it holds half of its
// own change: the pool's compile task the JIT waited for, on its thread.
TEST(AnatomyVerdict, AGroupMemberIsFollowedDownToTheStageOnItsThread) {
  const auto ds = anatomy_deltas(
      side(6, {{"compile", 2.0}, {"compile/jit", 0.8}, {"compile/jit/task@tf_xla-cpu-codegen", 0.78},
               {"compile/consume", 0.2}}),
      side(6, {{"compile", 3.0}, {"compile/jit", 1.3}, {"compile/jit/task@tf_xla-cpu-codegen", 1.27},
               {"compile/consume", 0.62}}),
      0);
  const auto v = anatomy_verdict(ds);
  ASSERT_EQ(v.together.size(), 2u);
  EXPECT_EQ(v.together[0].item->path, (Path{"compile", "jit", "task"}));
  EXPECT_EQ(v.together[0].via.front()->path, (Path{"compile", "jit"}));
  EXPECT_NEAR(v.together[0].share.share, 0.5, 1e-9);  // the member's share, not the stage's
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find("jit +500.00 ms (×1.62 ["), std::string::npos) << line;
  EXPECT_NE(line.find(", of which task on tf_xla-cpu-codegen +490.00 ms"), std::string::npos) << line;
  EXPECT_NE(line.find("; and consume +420.00 ms"), std::string::npos) << line;
}

// A renamed event reads new under one name and gone under the other: neither
// is a member of a group, though the new one moved the phase's way.
TEST(AnatomyVerdict, ARenamedPairIsNoGroupMember) {
  const auto ds = anatomy_deltas(
      side(6, {{"compile", 1.0}, {"compile/old_name", 0.5}, {"compile/T", 0.1}, {"compile/U", 0.1}}),
      side(6, {{"compile", 1.2}, {"compile/new_name", 0.55}, {"compile/T", 0.2}, {"compile/U", 0.2}}), 0);
  const auto v = anatomy_verdict(ds);
  EXPECT_EQ(named(v.together), (std::vector<Path>{{"compile", "T"}, {"compile", "U"}}));
  // A new stage beside nothing gone is a member like any other, marked new.
  const auto added = anatomy_deltas(side(6, {{"compile", 1.0}, {"compile/T", 0.1}}),
                                    side(6, {{"compile", 1.5}, {"compile/T", 0.35}, {"compile/K", 0.2}}), 0);
  EXPECT_EQ(named(anatomy_verdict(added).together), (std::vector<Path>{{"compile", "T"}, {"compile", "K"}}));
  EXPECT_NE(anatomy_delta_line(added).find("; and K +200.00 ms (new), 40% ["), std::string::npos)
      << anatomy_delta_line(added);
}

TEST(AnatomyVerdict, NothingThatHoldsHalfNamesTheLargestMoveOnly) {
  const auto ds = anatomy_deltas(
      side(6, {{"compile", 1.0}, {"compile/A", 0.1}, {"compile/B", 0.1}, {"compile/C", 0.1}, {"compile/D", 0.1}}),
      side(6, {{"compile", 2.0}, {"compile/A", 0.2}, {"compile/B", 0.2}, {"compile/C", 0.2}, {"compile/D", 0.2}}), 0);
  const auto v = anatomy_verdict(ds);
  EXPECT_TRUE(v.alone.empty() && v.together.empty());
  ASSERT_TRUE(v.largest);
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find("; none of its sub-phases holds half of it, alone or two or three together (largest move "
                      "below: "),
            std::string::npos)
      << line;
}

TEST(AnatomyVerdict, TheShareIntervalIsTheSameEveryTime) {
  const auto base = side(7, {{"compile", 1.0}, {"compile/A", 0.5}}, {{"compile/A", 0.1}});
  const auto next = side(7, {{"compile", 2.0}, {"compile/A", 1.2}}, {{"compile/A", 0.1}});
  const auto a = anatomy_deltas(base, next, 0), b = anatomy_deltas(base, next, 0);
  ASSERT_EQ(a.size(), 2u);
  const auto first = share_of_change({&a[1]}, a[0]), again = share_of_change({&b[1]}, b[0]);
  ASSERT_TRUE(first.lo && first.hi);
  EXPECT_LT(*first.lo, first.share);
  EXPECT_EQ(first, again);
}

// -- Recorded: four separately recorded anatomy runs per side of one release step ------------------------------
// JAX 0.7.2 -> 0.8.0, retrace_raw 4096 f32, 6 anatomy processes a side in each of four `jitbench run --env
// jax-0.7.2:... --env jax-0.8.0:... --anatomy --anatomy-runs 6` (a loaded 2-core machine: load average 4.5-6.6
// for the first three; 8.2-12.7 for the fourth, whose two sides' anatomy processes took turns), kept by
// bench/anatomy_step_data.py. Each run's two sides give the same verdict as every other run's: the same
// items named, alone and together, down to the same stages on the same threads. (A BASE of one run against the
// NEW of another compares two loads of the machine, which one run's two sides share: such a pairing can even
// move another phase most, and is not what a line compares.)
struct RecordedStep {
  std::vector<Path> paths;
  std::vector<std::string> threads;
  std::vector<std::vector<RunRecord>> base, next;  // per recorded run, its processes
};

RecordedStep recorded_step(const std::string& name) {
  std::ifstream in(std::filesystem::path(JITBENCH_TEST_DATA) / "anatomy" / "steps" / name);
  const auto doc = nlohmann::json::parse(in);
  RecordedStep out;
  out.paths = doc["paths"].get<std::vector<Path>>();
  out.threads = doc["threads"].get<std::vector<std::string>>();
  const auto side = [&](const nlohmann::json& processes) {
    std::vector<RunRecord> runs;
    for (const auto& values : processes) {
      RunRecord r;
      r.mode = RunMode::Anatomy;
      r.status = Status::Ok;
      for (std::size_t i = 0; i < out.paths.size(); ++i) {
        if (values[i].get<double>() <= 0) continue;
        AnatomyItem it{out.paths[i], values[i].get<double>(), "event", {}};
        it.thread = out.threads[i];
        r.worker.anatomy.push_back(it);
      }
      runs.push_back(r);
    }
    return runs;
  };
  for (const auto& run : doc["runs"]) {
    out.base.push_back(side(run[doc["base"].get<std::string>()]));
    out.next.push_back(side(run[doc["new"].get<std::string>()]));
  }
  return out;
}

// What a verdict names: the items alone, then each group member's path down to its stage.
std::vector<std::vector<Path>> names(const AnatomyVerdict& v) {
  std::vector<std::vector<Path>> out{named(v.alone)};
  for (const auto& m : v.together) {
    out.emplace_back();
    for (const auto* d : m.via) out.back().push_back(d->path);
  }
  return out;
}

TEST(AnatomyVerdict, FourRecordedRunsASideOfOneReleaseStepGiveTheSameLine) {
  const auto step = recorded_step("retrace_raw_4096_f32-jax-0.7.2-0.8.0.json");
  ASSERT_EQ(step.base.size(), 4u);
  std::vector<std::string> lines;
  std::optional<std::vector<std::vector<Path>>> first;
  for (std::size_t run = 0; run < step.base.size(); ++run) {
    const auto ds = anatomy_deltas(step.base[run], step.next[run], 0);
    const auto v = anatomy_verdict(ds);
    ASSERT_TRUE(v.intervals);
    lines.push_back(anatomy_delta_line(ds));
    if (!first) first = names(v);
    EXPECT_EQ(names(v), *first) << lines.front() << "\n" << lines.back();
  }
  // The step is in XLA's CPU executable build; in it the JIT's LLVM compile tasks and the kernels the thunk
  // emission and ConsumeKernels wait for, all on XLA's codegen pool.
  const Path cpu{"compile", "XLA compile (backend_compile[_and_load])", "PjRt compile", "code generation (RunBackend)",
                 "CPU executable (LLVM)"};
  ASSERT_FALSE(first->empty() || first->front().empty()) << lines[0];
  EXPECT_EQ(first->front().back(), cpu);
  for (const char* stage : {"LLVM compile task (TaskDispatcher::dispatch) on tf_xla-cpu-codegen",
                            "fusion kernel compile (FusionCompiler::Compile) on tf_xla-cpu-codegen"})
    EXPECT_NE(lines[0].find(stage), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace jitbench::compare
