#include "plan/planned_run.h"

#include <fmt/format.h>

#include <map>
#include <string>

namespace jitbench {

// The expected seconds of each case the run measures (p.cases), from the plan's cost model.
std::vector<double> costs_of_cases(const PlannedRun& p) {
  std::map<std::string, double> by_id;
  for (std::size_t k = 0; k < p.full.size() && k < p.costs.size(); ++k) by_id[p.full[k].id] = p.costs[k];
  std::vector<double> out;
  for (const auto& c : p.cases) out.push_back(by_id.count(c.id) ? by_id[c.id] : 0.0);
  return out;
}

void cost_and_shard(PlannedRun& p, int processes, int calls, const std::map<std::string, double>& measured,
                    const std::optional<ShardSpec>& shard, const std::string& costs_from) {
  p.costs = expected_costs(p.full, measured, processes, calls);
  p.shard_of.assign(p.full.size(), 0);
  if (!shard) {
    p.cases = p.full;
    return;
  }
  const auto [k, n] = *shard;
  p.shard_of = assign_case_shards(p.full, p.costs, n);  // a case's environments in one shard
  std::vector<std::string> ids;
  std::size_t known = 0;
  for (std::size_t i = 0; i < p.full.size(); ++i) {
    ids.push_back(p.full[i].id);
    known += measured.count(p.full[i].id);
    if (p.shard_of[i] == k - 1) p.cases.push_back(p.full[i]);
  }
  p.shard = ShardSection{k, n, plan_digest(p.full), ids,
                         costs_from.empty() ? std::string("model (backend and size)")
                                            : fmt::format("measured in {} for {} of {} cases, model for the rest",
                                                          costs_from, known, p.full.size())};
}

}  // namespace jitbench
