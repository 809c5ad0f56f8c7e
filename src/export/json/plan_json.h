#pragma once
// `jitbench plan --json` (jitbench.plan.v1): the plan's cases in order, with
// their expected cost and shard.
#include <nlohmann/json.hpp>

#include <vector>

#include "config/suite.h"
#include "plan/plan.h"

namespace jitbench {
inline constexpr const char* kPlanSchema = "jitbench.plan.v1";
// shard_index 0: the whole plan; else only the cases of that 1-based shard of shard_count.
nlohmann::json plan_json(const Suite& suite, const std::vector<Case>& full, const std::vector<double>& costs,
                         const std::vector<int>& shard_of, int shard_index, int shard_count, const std::string& costs_from);
}  // namespace jitbench
