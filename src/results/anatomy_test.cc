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
  EXPECT_FALSE(anatomy_inconsistency({{{"compile"}, 1.0, "", {}}, {{"compile", "a"}, 0.6, "", {}}, {{"compile", "b"}, 0.4, "", {}}},
                                     1.0, no_slack));
}

TEST(Anatomy, ChildrenThatExceedTheirParentAreCaught) {
  const auto why = anatomy_inconsistency(
      {{{"compile"}, 1.0, "", {}}, {{"compile", "a"}, 0.7, "", {}}, {{"compile", "b"}, 0.4, "", {}}}, 2.0, no_slack);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("under 'compile' add up to 1.1"), std::string::npos) << *why;
  // The same items summed by path (a pass that ran twice): still caught.
  EXPECT_TRUE(anatomy_inconsistency({{{"c"}, 1.0, "", {}}, {{"c", "a"}, 0.6, "", {}}, {{"c", "a"}, 0.6, "", {}}}, 2.0, no_slack));
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
