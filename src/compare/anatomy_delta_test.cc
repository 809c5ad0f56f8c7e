// Sub-phase deltas between two sets of anatomy runs: the moved sub-phase
// ranks first, one-sided items are new or gone (never a ratio of nothing), a
// side with fewer processes than the Sampling rule asks of an interval (6)
// gets no CI; the phases survive the top-N cut.
#include "compare/anatomy_delta.h"

#include "compare/releases.h"
#include "plan/plan.h"

#include <gtest/gtest.h>

namespace jitbench::compare {
namespace {

RunRecord anatomy_process(double compile, double backend, double passes, bool with_passes = true) {
  RunRecord r;
  r.mode = RunMode::Anatomy;
  r.status = Status::Ok;
  r.worker.anatomy = {{{"compile"}, compile, "jitbench phase", {}},
                      {{"compile", "backend_compile_and_load"}, backend, "event", {}},
                      {{"compile", "backend_compile_and_load", "RunBackend"}, backend * 0.8, "event", {}}};
  if (with_passes) r.worker.anatomy.push_back({{"compile", "hlo_passes"}, passes, "event", {}});
  return r;
}

std::vector<RunRecord> side(int n, double compile, double backend, double passes, bool with_passes = true) {
  std::vector<RunRecord> out;
  for (int i = 0; i < n; ++i) {
    const double wobble = 1.0 + 0.01 * i;  // distinct values: a bootstrap with something to resample
    out.push_back(anatomy_process(compile * wobble, backend * wobble, passes * wobble, with_passes));
  }
  return out;
}

const SubPhaseDelta* find(const std::vector<SubPhaseDelta>& ds, const std::vector<std::string>& path) {
  for (const auto& d : ds)
    if (d.path == path) return &d;
  return nullptr;
}

TEST(AnatomyDelta, TheMovedSubPhaseRanksFirstBelowItsPhase) {
  // The compile grows by 0.8 s, 0.7 s of it in backend_compile_and_load; the passes stay put.
  const auto ds = anatomy_deltas(side(6, 1.0, 0.5, 0.2), side(6, 1.8, 1.2, 0.2), 0);
  ASSERT_GE(ds.size(), 4u);
  EXPECT_EQ(ds[0].path, (std::vector<std::string>{"compile"}));
  EXPECT_EQ(ds[1].path, (std::vector<std::string>{"compile", "backend_compile_and_load"}));
  EXPECT_NEAR(ds[1].change_s, 0.7 * 1.025, 1e-9);  // the medians: between the third and fourth of six
  ASSERT_TRUE(ds[1].ratio && ds[1].lo && ds[1].hi);
  EXPECT_NEAR(*ds[1].ratio, 1.2 / 0.5, 1e-9);
  EXPECT_LE(*ds[1].lo, *ds[1].ratio);
  EXPECT_GE(*ds[1].hi, *ds[1].ratio);
  EXPECT_GT(*ds[1].lo, 1.5);  // every process moved: the CI excludes 1
  EXPECT_EQ(ds.back().path, (std::vector<std::string>{"compile", "hlo_passes"}));
  EXPECT_NEAR(ds.back().change_s, 0.0, 1e-12);
}

TEST(AnatomyDelta, TopKeepsTheLargestChanges) {
  const auto ds = anatomy_deltas(side(3, 1.0, 0.5, 0.2), side(3, 1.8, 1.2, 0.2), 2);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[1].path, (std::vector<std::string>{"compile", "backend_compile_and_load"}));
}

TEST(AnatomyDelta, ThePhaseIsKeptWhenItsSubPhasesMovedMore) {
  // backend_compile_and_load +0.7 s and hlo_passes −0.6 s: the compile moves only +0.1 s, ranks last, and is
  // kept beyond the top 2 (a line names the phase, then what moved under it).
  const auto ds = anatomy_deltas(side(3, 1.0, 0.5, 0.8), side(3, 1.1, 1.2, 0.2), 2);
  ASSERT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds[0].path, (std::vector<std::string>{"compile", "backend_compile_and_load"}));
  EXPECT_EQ(ds[2].path, (std::vector<std::string>{"compile"}));
}

TEST(AnatomyDelta, OneSidedItemsAreNewOrGoneNeverARatio) {
  const auto gone = anatomy_deltas(side(3, 1.0, 0.5, 0.2), side(3, 1.0, 0.5, 0.2, false), 0);
  const auto* g = find(gone, {"compile", "hlo_passes"});
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->base_s.has_value());
  EXPECT_FALSE(g->new_s.has_value());
  EXPECT_FALSE(g->ratio.has_value());
  EXPECT_FALSE(g->lo.has_value());
  EXPECT_NEAR(g->change_s, -0.2 * 1.01, 1e-9);

  const auto added = anatomy_deltas(side(3, 1.0, 0.5, 0.2, false), side(3, 1.0, 0.5, 0.2), 0);
  const auto* n = find(added, {"compile", "hlo_passes"});
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->base_s.has_value());
  EXPECT_TRUE(n->new_s.has_value());
  EXPECT_FALSE(n->ratio.has_value());
  EXPECT_GT(n->change_s, 0.0);
}

TEST(AnatomyDelta, FewProcessesGiveARatioWithoutACi) {
  const auto ds = anatomy_deltas(side(2, 1.0, 0.5, 0.2), side(5, 1.8, 1.2, 0.2), 0);
  const auto* d = find(ds, {"compile", "backend_compile_and_load"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->n_base, 2u);
  EXPECT_EQ(d->n_new, 5u);
  EXPECT_TRUE(d->ratio.has_value());
  EXPECT_FALSE(d->lo.has_value());
  EXPECT_FALSE(d->hi.has_value());
  EXPECT_NEAR(d->base_lo, 0.5, 1e-12);
  EXPECT_NEAR(d->base_hi, 0.505, 1e-12);
  // Three or five a side still give none (a bootstrap of a median of 3 has at most 10 outcomes); 6 do.
  const auto three = anatomy_deltas(side(3, 1.0, 0.5, 0.2), side(5, 1.8, 1.2, 0.2), 0);
  EXPECT_FALSE(find(three, {"compile", "backend_compile_and_load"})->lo.has_value());
  const auto five = anatomy_deltas(side(5, 1.0, 0.5, 0.2), side(5, 1.8, 1.2, 0.2), 0);
  EXPECT_FALSE(find(five, {"compile", "backend_compile_and_load"})->lo.has_value());
  const auto enough = anatomy_deltas(side(6, 1.0, 0.5, 0.2), side(6, 1.8, 1.2, 0.2), 0);
  EXPECT_TRUE(find(enough, {"compile", "backend_compile_and_load"})->lo.has_value());
}

TEST(AnatomyDelta, NoAnatomyOnASideGivesNothing) {
  EXPECT_TRUE(anatomy_deltas({}, side(3, 1.0, 0.5, 0.2)).empty());
  auto failed = side(3, 1.0, 0.5, 0.2);
  for (auto& r : failed) r.status = Status::Failed;  // failed processes are not anatomy samples
  EXPECT_TRUE(anatomy_deltas(failed, side(3, 1.0, 0.5, 0.2)).empty());
}

TEST(AnatomyDelta, AProcessWithoutAnItemCountsZeroForIt) {
  // Two of three BASE processes report the passes: BASE's median is the lower of them, not of those two alone.
  auto base = side(3, 1.0, 0.5, 0.2);
  base[0].worker.anatomy.pop_back();
  const auto ds = anatomy_deltas(base, side(3, 1.0, 0.5, 0.2), 0);
  const auto* d = find(ds, {"compile", "hlo_passes"});
  ASSERT_TRUE(d && d->base_s);
  EXPECT_NEAR(*d->base_s, 0.2 * 1.01, 1e-12);
  EXPECT_NEAR(d->base_lo, 0.0, 1e-12);
}

// The releases table: each environment's step carries the sub-phases that
// moved from the environment above; the first has none, nor one without anatomy.
TEST(AnatomyDelta, TheReleasesTableCarriesEachStepsSubPhases) {
  std::vector<CaseResult> cases;
  for (const char* env : {"old", "new", "plain"}) {
    CaseResult c;
    c.c = make_case("numba", "matmul", 8, "f32", CachePolicy::ColdCache, Precision::Default, env);
    c.status = Status::Ok;
    if (std::string(env) == "old") c.anatomy = side(3, 1.0, 0.5, 0.2);
    if (std::string(env) == "new") c.anatomy = side(3, 1.8, 1.2, 0.2);
    cases.push_back(std::move(c));
  }
  const auto rows = release_rows(cases);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].entries.size(), 3u);
  EXPECT_TRUE(rows[0].entries[0].anatomy_step.empty());
  ASSERT_FALSE(rows[0].entries[1].anatomy_step.empty());
  EXPECT_EQ(rows[0].entries[1].anatomy_step[1].path, (std::vector<std::string>{"compile", "backend_compile_and_load"}));
  EXPECT_TRUE(rows[0].entries[2].anatomy_step.empty());
}

}  // namespace
}  // namespace jitbench::compare
