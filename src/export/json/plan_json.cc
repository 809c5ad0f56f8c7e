#include "export/json/plan_json.h"

#include <fmt/format.h>

#include "plan/shard.h"

namespace jitbench {

nlohmann::json plan_json(const Suite& suite, const std::vector<Case>& full, const std::vector<double>& costs,
                         const std::vector<int>& shard_of, int shard_index, int shard_count, const std::string& costs_from) {
  nlohmann::json cases = nlohmann::json::array();
  for (std::size_t i = 0; i < full.size(); ++i) {
    const auto& c = full[i];
    if (shard_index && shard_of[i] != shard_index - 1) continue;
    cases.push_back({{"case", c.id}, {"backend", c.backend}, {"workload", c.workload}, {"n", c.n},
                     {"dtype", c.dtype}, {"cache_policy", to_string(c.cache_policy)},
                     {"precision", to_string(c.precision)}, {"expected_cost_s", costs[i]},
                     {"shard", shard_index ? nlohmann::json(fmt::format("{}/{}", shard_of[i] + 1, shard_count))
                                           : nlohmann::json(nullptr)}});
  }
  nlohmann::json shard = nullptr;
  if (shard_index) shard = {{"index", shard_index}, {"count", shard_count}, {"costs", costs_from}};
  return {{"schema_version", kPlanSchema},
          {"suite", {{"name", suite.name}, {"source", suite.source}}},
          {"plan_digest", plan_digest(full)},
          {"n_planned", full.size()},
          {"shard", shard},
          {"cases", cases}};
}

}  // namespace jitbench
