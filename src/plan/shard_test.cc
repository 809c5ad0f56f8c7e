#include "plan/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace jitbench {
namespace {

TEST(ShardSpec, ParsesKOfNAndRefusesTheRest) {
  auto ok = parse_shard_spec("2/3");
  ASSERT_TRUE(std::holds_alternative<ShardSpec>(ok));
  EXPECT_EQ(std::get<ShardSpec>(ok).index, 2);
  EXPECT_EQ(std::get<ShardSpec>(ok).count, 3);
  for (const char* bad : {"0/3", "4/3", "3", "/3", "3/", "a/b", "1/0", "-1/3", "1/99999999", "1 /3", "1/3/4"})
    EXPECT_TRUE(std::holds_alternative<std::string>(parse_shard_spec(bad))) << bad;
}

TEST(AssignShards, EveryCaseOnceLongestFirstToTheLeastLoaded) {
  const std::vector<double> costs{5, 1, 4, 2, 3, 3};
  const auto shard = assign_shards(costs, 2);
  ASSERT_EQ(shard.size(), costs.size());
  // By hand, longest first: 5->A, 4->B, 3->B (7), 3->A (8), 2->B (9), 1->A (9).
  EXPECT_EQ(shard, (std::vector<int>{0, 0, 1, 1, 1, 0}));
  double load[2] = {0, 0};
  for (std::size_t i = 0; i < costs.size(); ++i) load[shard[i]] += costs[i];
  EXPECT_DOUBLE_EQ(load[0], 9);
  EXPECT_DOUBLE_EQ(load[1], 9);
}

TEST(AssignShards, MoreShardsThanCasesLeavesSomeEmptyAndIsDeterministic) {
  const std::vector<double> costs{1, 1, 1};
  const auto a = assign_shards(costs, 5), b = assign_shards(costs, 5);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<int>{0, 1, 2}));  // ties: plan order, lowest shard
}

TEST(ExpectedCosts, MeasuredWhereKnownModelScaledToThemElsewhere) {
  const std::vector<Case> plan{make_case("numpy", "matmul", 512, "f32"), make_case("numpy", "matmul", 1024, "f32")};
  const double model0 = modelled_cost_s(plan[0], 6, 30), model1 = modelled_cost_s(plan[1], 6, 30);
  const auto costs = expected_costs(plan, {{plan[0].id, 2 * model0}}, 6, 30);
  EXPECT_DOUBLE_EQ(costs[0], 2 * model0);
  EXPECT_DOUBLE_EQ(costs[1], 2 * model1);  // scaled like the measured one
  EXPECT_GT(model1, model0);               // a bigger matmul costs more
}

TEST(PlanDigest, DependsOnTheIdsAndTheirOrder) {
  std::vector<Case> plan{make_case("numpy", "matmul", 512, "f32"), make_case("numba", "matmul", 512, "f32")};
  const auto d = plan_digest(plan);
  EXPECT_EQ(d.size(), 64u);
  std::swap(plan[0], plan[1]);
  EXPECT_NE(plan_digest(plan), d);
}

}  // namespace
}  // namespace jitbench
