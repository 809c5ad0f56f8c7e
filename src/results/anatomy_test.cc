// A case's compile anatomy: the check that catches a lying worker, the medians
// over the anatomy runs, the keep rule, other and unattributed.
#include "results/anatomy.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace jitbench {
namespace {

double no_slack(double) { return 0.0; }

RunRecord anatomy_run(std::vector<AnatomyItem> items, double phases = 1.0) {
  RunRecord r;
  r.mode = RunMode::Anatomy;
  r.status = Status::Ok;
  r.worker.anatomy = std::move(items);
  r.worker.has_first_call = true;
  r.worker.all_phases_sum = phases;
  return r;
}

RunRecord measured_cold(double phases, std::optional<bool> profiler) {
  RunRecord r;
  r.status = Status::Ok;
  r.worker.has_first_call = true;
  r.worker.all_phases_sum = phases;
  r.worker.anatomy_instrumented = false;
  r.worker.profiler_session = profiler;
  return r;
}

TEST(Anatomy, ChildrenWithinTheirParentPass) {
  EXPECT_FALSE(anatomy_inconsistency(
      {{{"compile"}, 1.0, "", {}}, {{"compile", "a"}, 0.6, "", {}}, {{"compile", "b"}, 0.4, "", {}}},
      1.0, no_slack));
}

TEST(Anatomy, ChildrenThatExceedTheirParentAreCaught) {
  const auto why = anatomy_inconsistency(
      {{{"compile"}, 1.0, "", {}}, {{"compile", "a"}, 0.7, "", {}}, {{"compile", "b"}, 0.4, "", {}}}, 2.0, no_slack);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("under 'compile' add up to 1.1"), std::string::npos) << *why;
  // The same items summed by path (a pass that ran twice): still caught.
  EXPECT_TRUE(anatomy_inconsistency({{{"c"}, 1.0, "", {}}, {{"c", "a"}, 0.6, "", {}}, {{"c", "a"}, 0.6, "", {}}}, 2.0,
                                    no_slack));
}

TEST(Anatomy, PhasesLongerThanTheFirstCallOrOrphansAreCaught) {
  EXPECT_TRUE(anatomy_inconsistency({{{"trace"}, 0.6, "", {}}, {{"compile"}, 0.6, "", {}}}, 1.0, no_slack));
  const auto orphan = anatomy_inconsistency({{{"compile"}, 1.0, "", {}}, {{"lower", "x"}, 0.1, "", {}}}, 2.0, no_slack);
  ASSERT_TRUE(orphan);
  EXPECT_NE(orphan->find("has no parent"), std::string::npos);
}

TEST(Anatomy, MediansPerItemOtherAndUnattributed) {
  CaseResult c;
  c.anatomy_runs = 3;
  c.anatomy = {anatomy_run({{{"compile"}, 1.0, "p", {}}, {{"compile", "a"}, 0.5, "ev a", {}}}, 1.0),
               anatomy_run({{{"compile"}, 2.0, "p", {}}, {{"compile", "a"}, 0.7, "ev a", {}}}, 2.0),
               anatomy_run({{{"compile"}, 3.0, "p", {}}}, 3.0)};  // a missing: 0 in this run
  c.cold = {measured_cold(2.0, false), measured_cold(2.0, false)};
  const auto a = anatomy_summary(c);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->runs, 3);
  ASSERT_EQ(a->nodes.size(), 3u);
  EXPECT_EQ(a->nodes[0].path, (std::vector<std::string>{"compile"}));
  EXPECT_DOUBLE_EQ(a->nodes[0].median_s, 2.0);
  EXPECT_DOUBLE_EQ(a->nodes[1].median_s, 0.5);  // median of 0.5, 0.7, 0
  EXPECT_EQ(a->nodes[1].runs, 2);
  EXPECT_EQ(a->nodes[2].path.back(), kAnatomyUnattributed);
  EXPECT_DOUBLE_EQ(a->nodes[2].median_s, 1.5);
  EXPECT_DOUBLE_EQ(*a->ratio, 1.0);
  EXPECT_EQ(a->agrees, std::optional<bool>(true));
  EXPECT_EQ(a->measured_runs_instrumented, std::optional<bool>(false));
}

TEST(Anatomy, KeepsTheLongestAndTheLargeSharesSumsTheRestAsOther) {
  // 45 items under one phase of 100 s: 44 of 1 s each (1%), one of 10 s.
  std::vector<AnatomyItem> items{{{"compile"}, 100.0, "", {}}, {{"compile", "big"}, 10.0, "", {}}};
  for (int i = 0; i < 44; ++i) items.push_back({{"compile", fmt::format("pass{:02}", i)}, 1.0, "", {}});
  CaseResult c;
  c.anatomy = {anatomy_run(items, 100.0)};
  const auto a = anatomy_summary(c);
  ASSERT_TRUE(a);
  int subs = 0;
  double other = -1, unattributed = -1;
  for (const auto& n : a->nodes) {
    if (n.path.size() != 2) continue;
    if (n.path.back() == kAnatomyOther) other = n.median_s;
    else if (n.path.back() == kAnatomyUnattributed) unattributed = n.median_s;
    else ++subs;
  }
  EXPECT_EQ(subs, kAnatomyLongest);       // 1% items beyond the 20 longest are not kept
  EXPECT_DOUBLE_EQ(other, 44.0 - 19.0);   // the 25 one-second items not kept
  EXPECT_DOUBLE_EQ(unattributed, 100.0 - 54.0);
  EXPECT_EQ(a->items_reported, 46);
}

TEST(Anatomy, ItemsOfAtLeastTwoPercentAreKeptBeyondTheLongestUpToTheMost) {
  std::vector<AnatomyItem> items{{{"compile"}, 100.0, "", {}}};
  for (int i = 0; i < 45; ++i) items.push_back({{"compile", fmt::format("pass{:02}", i)}, 2.0, "", {}});
  CaseResult c;
  c.anatomy = {anatomy_run(items, 100.0)};
  const auto a = anatomy_summary(c);
  int subs = 0;
  for (const auto& n : a->nodes)
    if (n.path.size() == 2 && n.path.back() != kAnatomyOther && n.path.back() != kAnatomyUnattributed) ++subs;
  EXPECT_EQ(subs, kAnatomyMost);
}

TEST(Anatomy, AMeasuredRunWithAProfilerOpenIsReported) {
  CaseResult c;
  c.anatomy = {anatomy_run({{{"compile"}, 1.0, "", {}}})};
  c.cold = {measured_cold(1.0, false), measured_cold(1.0, true)};
  EXPECT_EQ(anatomy_summary(c)->measured_runs_instrumented, std::optional<bool>(true));
  c.cold = {measured_cold(1.0, std::nullopt)};
  EXPECT_EQ(anatomy_summary(c)->measured_runs_instrumented, std::optional<bool>(false));  // anatomy flag: false
}

TEST(Anatomy, AMeasuredRunWithoutAnInstrumentationRecordIsUnknownNotClean) {
  CaseResult c;
  c.anatomy = {anatomy_run({{{"compile"}, 1.0, "", {}}})};
  RunRecord silent = measured_cold(1.0, std::nullopt);
  silent.worker.anatomy_instrumented = std::nullopt;
  c.cold = {measured_cold(1.0, false), silent};
  EXPECT_EQ(anatomy_summary(c)->measured_runs_instrumented, std::nullopt);
}

TEST(Anatomy, IntervalsInsideTheirParentAndDisjointPass) {
  EXPECT_FALSE(anatomy_interval_inconsistency({{{"compile"}, 1.0, "", {{0.0, 1.0}}},
                                               {{"compile", "a"}, 0.4, "", {{0.1, 0.5}}},
                                               {{"compile", "b"}, 0.4, "", {{0.5, 0.9}}},
                                               {{"compile", "a", "x"}, 0.1, "", {{0.2, 0.3}}}}));
}

TEST(Anatomy, SiblingsThatOverlapAreCaughtThoughTheirSumFits) {
  const std::vector<AnatomyItem> items{{{"compile"}, 1.0, "", {{0.0, 1.0}}},
                                       {{"compile", "a"}, 0.4, "", {{0.1, 0.5}}},
                                       {{"compile", "b"}, 0.4, "", {{0.3, 0.7}}}};
  EXPECT_FALSE(anatomy_inconsistency(items, 1.0, no_slack));  // the sums alone see nothing
  const auto why = anatomy_interval_inconsistency(items);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("overlap"), std::string::npos) << *why;
}

TEST(Anatomy, AChildOutsideItsParentsIntervalIsCaught) {
  const auto why = anatomy_interval_inconsistency({{{"compile"}, 1.0, "", {{0.0, 1.0}}},
                                                   {{"compile", "a"}, 0.2, "", {{0.1, 0.3}}},
                                                   {{"compile", "a", "x"}, 0.1, "", {{0.35, 0.45}}}});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("inside no interval of its parent 'compile / a'"), std::string::npos) << *why;
}

// Another thread's item (a pool XLA's compile waits for): marked with its thread group, its wall time what its
// parent waited, its thread time beside it. Like is compared with like.
AnatomyItem pool_item(std::vector<std::string> path, double wall, double thread_s,
                      std::vector<std::pair<double, double>> intervals) {
  AnatomyItem it{std::move(path), wall, "event", std::move(intervals)};
  it.thread = "tf_xla-cpu-codegen";
  it.thread_s = thread_s;
  return it;
}

TEST(Anatomy, AnotherThreadsItemRunsBesideItsSiblingsAndMayExceedItsParentInThreadTime) {
  // a on the dispatching thread 0.1-0.5; the pool 0.2-0.9 on two threads: 1.2 s of thread time in a 1 s
  // compile, 0.4 s of it waited for (0.5-0.9, where a is not running).
  const std::vector<AnatomyItem> items{{{"compile"}, 1.0, "", {{0.0, 1.0}}},
                                       {{"compile", "a"}, 0.4, "", {{0.1, 0.5}}},
                                       pool_item({"compile", "kernels"}, 0.4, 1.2, {{0.2, 0.9}}),
                                       pool_item({"compile", "kernels", "llvm"}, 0.3, 0.9, {{0.3, 0.8}})};
  EXPECT_FALSE(anatomy_inconsistency(items, 1.0, no_slack));
  EXPECT_FALSE(anatomy_interval_inconsistency(items));
  // A pool's piece that runs on across two back-to-back runs of its parent lies within their union; the
  // dispatching thread's item must lie within one.
  const std::vector<AnatomyItem> twice{{{"compile"}, 1.0, "", {{0.0, 1.0}}},
                                       {{"compile", "a"}, 0.4, "", {{0.1, 0.3}, {0.3, 0.5}}},
                                       pool_item({"compile", "a", "k"}, 0.2, 0.2, {{0.2, 0.4}})};
  EXPECT_FALSE(anatomy_interval_inconsistency(twice));
  auto on_main = twice;
  on_main[2].thread.clear(), on_main[2].thread_s.reset();
  EXPECT_TRUE(anatomy_interval_inconsistency(on_main));
}

TEST(Anatomy, AnotherThreadsItemThatClaimsMoreThanItsThreadsRanIsCaught) {
  // More wall time than thread time: the threads cannot have been waited for longer than they ran.
  auto items = std::vector<AnatomyItem>{{{"compile"}, 1.0, "", {{0.0, 1.0}}},
                                        pool_item({"compile", "kernels"}, 0.6, 0.5, {{0.2, 0.9}})};
  auto why = anatomy_inconsistency(items, 1.0, no_slack);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("more than its 0.5 s of thread time"), std::string::npos) << *why;
  // More wall time than its intervals cover.
  items[1] = pool_item({"compile", "kernels"}, 0.6, 1.0, {{0.2, 0.5}, {0.6, 0.7}});
  EXPECT_FALSE(anatomy_inconsistency(items, 1.0, no_slack));
  why = anatomy_interval_inconsistency(items);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("more than its intervals cover (0.4 s)"), std::string::npos) << *why;
  // Children on its own threads with more thread time than it.
  items[1] = pool_item({"compile", "kernels"}, 0.6, 1.0, {{0.2, 0.9}});
  items.push_back(pool_item({"compile", "kernels", "llvm"}, 0.3, 1.1, {{0.3, 0.8}}));
  why = anatomy_inconsistency(items, 1.0, no_slack);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("on its own thread group tf_xla-cpu-codegen add up to 1.1 s of thread time"), std::string::npos)
      << *why;
  // Wall children still within their wall parent, whatever thread they ran on.
  items.back() = pool_item({"compile", "kernels", "llvm"}, 0.7, 0.9, {{0.2, 0.9}});
  why = anatomy_inconsistency(items, 1.0, no_slack);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("under 'compile / kernels' add up to 0.7"), std::string::npos) << *why;
}

TEST(Anatomy, TheSummaryKeepsEachItemsThreadAndThreadTimeBesideItsWall) {
  CaseResult c;
  auto run = [](double wall, double thread_s, std::string thread) {
    auto it = pool_item({"compile", "kernels"}, wall, thread_s, {});
    it.thread = std::move(thread);
    RunRecord r = anatomy_run({{{"compile"}, 1.0, ""}, it});
    r.worker.anatomy_outside = AnatomyOutside{10, 0.01, 0.02, 0.05};
    return r;
  };
  c.anatomy = {run(0.2, 0.5, "pool"), run(0.4, 0.9, "pool"), run(0.3, 0.7, "pool")};
  auto a = anatomy_summary(c);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->nodes.size(), 3u);
  EXPECT_EQ(a->nodes[1].thread, "pool");
  EXPECT_DOUBLE_EQ(a->nodes[1].median_s, 0.3);
  EXPECT_DOUBLE_EQ(*a->nodes[1].thread_median_s, 0.7);
  EXPECT_EQ(a->nodes[0].thread, "");
  EXPECT_FALSE(a->nodes[0].thread_median_s);
  EXPECT_DOUBLE_EQ(a->nodes[2].median_s, 0.7);  // unattributed: the wall left, never the thread time
  ASSERT_TRUE(a->outside_phases);
  EXPECT_EQ(a->outside_phases->runs, 3);
  EXPECT_DOUBLE_EQ(a->outside_phases->wall_s, 0.01);
  c.anatomy[1] = run(0.4, 0.9, "another pool");
  c.anatomy[2].worker.anatomy_outside.reset();  // a worker before the field: not counted
  a = anatomy_summary(c);
  EXPECT_EQ(a->nodes[1].thread, "several");
  EXPECT_EQ(a->outside_phases->runs, 2);
  c.anatomy = {anatomy_run({{{"compile"}, 1.0, ""}})};
  EXPECT_FALSE(anatomy_summary(c)->outside_phases);
}

TEST(Anatomy, WithoutARatioAgreesIsUnknown) {
  CaseResult c;
  c.anatomy = {anatomy_run({{{"compile"}, 1.0, "", {}}})};  // no measured cold run: no ratio
  const auto a = anatomy_summary(c);
  EXPECT_FALSE(a->ratio);
  EXPECT_EQ(a->agrees, std::nullopt);
}

TEST(Anatomy, ACrashedAnatomyProcessWarnsALyingOneFails) {
  CaseResult c;
  c.cold = {measured_cold(1.0, false)};
  RunRecord crashed = anatomy_run({});
  crashed.status = Status::Failed;
  crashed.reason = {ReasonCode::WorkerFailed, ""};
  c.anatomy = {crashed};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Warn);
  EXPECT_EQ(c.reason.code, ReasonCode::AnatomyFailed);
  EXPECT_TRUE(timings_comparable(c));
  c.anatomy[0].reason = {ReasonCode::InconsistentTimings, ""};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Failed);
  EXPECT_EQ(c.reason.code, ReasonCode::InconsistentTimings);
}

TEST(Anatomy, NoAnatomyRunsNoSummary) { EXPECT_FALSE(anatomy_summary(CaseResult{})); }

}  // namespace
}  // namespace jitbench
