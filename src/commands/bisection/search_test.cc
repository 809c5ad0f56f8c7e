// What bisect's search decides (search.h), driven by hand as bisection.cc
// drives it with measurements: the release measured next, the side a step's
// call puts it on, a step that cannot be measured left out, and a boundary
// that was not confirmed revised.
#include "commands/bisection/search.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace jitbench {
namespace {

std::vector<std::string> releases(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back("1." + std::to_string(k));
  return out;
}

Search fresh(std::size_t n) { return Search{{0}, {n - 1}, std::vector<bool>(n, false), {}, {}}; }

// The search between the ends as bisect() runs it, each step called by `call`; the steps measured.
std::vector<std::size_t> run_search(Search& s, const std::vector<std::string>& cands,
                                    const std::function<StepCall(std::size_t)>& call) {
  std::vector<std::size_t> measured;
  while (const auto mid = middle(s.goods.back(), s.bads.back(), s.skip)) {
    measured.push_back(*mid);
    take_call(s, *mid, call(*mid), cands);
  }
  return measured;
}

TEST(BisectSearch, TheNextReleaseIsHalfwayAmongThoseNotLeftOut) {
  const std::vector<bool> none(10, false);
  EXPECT_EQ(middle(0, 9, none), 4u);  // 1..8: the lower of the two middles
  EXPECT_EQ(middle(0, 2, none), 1u);
  EXPECT_FALSE(middle(3, 4, none));  // adjacent: nothing between
  std::vector<bool> skip(10, false);
  skip[4] = skip[3] = true;
  EXPECT_EQ(middle(0, 9, skip), 5u);  // 1, 2, 5, 6, 7, 8
  std::vector<bool> all(10, true);
  EXPECT_FALSE(middle(0, 9, all));
}

TEST(BisectSearch, TheFirstBadReleaseIsFoundInLogarithmicallyManySteps) {
  const auto cands = releases(33);
  for (std::size_t first_bad = 1; first_bad < cands.size(); ++first_bad) {
    auto s = fresh(cands.size());
    const auto steps =
        run_search(s, cands, [&](std::size_t k) { return k >= first_bad ? StepCall::Bad : StepCall::Good; });
    EXPECT_EQ(s.bads.back(), first_bad);
    EXPECT_EQ(s.goods.back(), first_bad - 1);
    EXPECT_LE(steps.size(), 5u);  // 31 releases between the ends: ceil(log2(32))
    EXPECT_TRUE(s.skipped.empty());
  }
}

TEST(BisectSearch, AStepThatCannotBeMeasuredIsLeftOutAndTheSearchGoesAroundIt) {
  const auto cands = releases(9);
  auto s = fresh(cands.size());
  const auto steps = run_search(s, cands, [](std::size_t k) {
    if (k == 4 || k == 5) return StepCall::Undecided;  // no wheel for this Python
    return k >= 5 ? StepCall::Bad : StepCall::Good;
  });
  EXPECT_EQ(s.skipped, (std::vector<std::string>{"1.4", "1.5"}));
  EXPECT_EQ(std::count(steps.begin(), steps.end(), 4u), 1);  // never measured twice
  EXPECT_EQ(s.goods.back(), 3u);  // the boundary spans what could not be measured
  EXPECT_EQ(s.bads.back(), 6u);
}

TEST(BisectSearch, AnUnconfirmedBoundaryMovesItsLastGoodToTheBadSideWhenItIsBad) {
  const auto cands = releases(9);
  auto s = fresh(cands.size());
  s.goods = {0, 4};
  s.bads = {8, 5};
  int asked = 0;
  EXPECT_TRUE(revise(s, [&] { return ++asked, true; }, cands));
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(s.goods, (std::vector<std::size_t>{0}));
  EXPECT_EQ(s.bads, (std::vector<std::size_t>{8, 5, 4}));
  EXPECT_TRUE(s.overturned.empty());
}

TEST(BisectSearch, OtherwiseItsFirstBadWasNoiseAndIsOverturned) {
  const auto cands = releases(9);
  auto s = fresh(cands.size());
  s.goods = {0, 4};
  s.bads = {8, 5};
  EXPECT_TRUE(revise(s, [] { return false; }, cands));
  EXPECT_EQ(s.goods, (std::vector<std::size_t>{0, 4, 5}));
  EXPECT_EQ(s.bads, (std::vector<std::size_t>{8}));
  EXPECT_EQ(s.overturned, (std::vector<std::string>{"1.5"}));
  // The search then goes on above the overturned release.
  EXPECT_EQ(middle(s.goods.back(), s.bads.back(), s.skip), 6u);
}

TEST(BisectSearch, TheEndsThemselvesNeverMoveAndTheGoodEndIsNotJudgedAgain) {
  const auto cands = releases(2);
  auto s = fresh(cands.size());
  int asked = 0;
  EXPECT_FALSE(revise(s, [&] { return ++asked, true; }, cands));  // the good end is good by the ends' verdict
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(s.goods, (std::vector<std::size_t>{0}));
  EXPECT_EQ(s.bads, (std::vector<std::size_t>{1}));
}

TEST(BisectSearch, PooledSamplesKeepEveryProcessOfEitherSidePerCase) {
  const StepSamples first{{"numba_matmul_64_f32", {1.0, 2.0}}, {"jax_jit_cpu_matmul_64_f32", {3.0}}};
  const StepSamples again{{"numba_matmul_64_f32", {4.0}}, {"numpy_matmul_64_f32", {5.0}}};
  const auto both = pooled(first, again);
  EXPECT_EQ(both.at("numba_matmul_64_f32"), (std::vector<double>{1.0, 2.0, 4.0}));
  EXPECT_EQ(both.at("jax_jit_cpu_matmul_64_f32"), (std::vector<double>{3.0}));
  EXPECT_EQ(both.at("numpy_matmul_64_f32"), (std::vector<double>{5.0}));
}

}  // namespace
}  // namespace jitbench
