#include "plan/shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/sha256.h"

namespace jitbench {

std::variant<ShardSpec, std::string> parse_shard_spec(const std::string& text) {
  const auto bad = [&] {
    return fmt::format("--shard '{}' must be K/N with 1 <= K <= N <= {} (e.g. 2/3 for the second of three shards)",
                       text, kMaxShards);
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return bad();
  const auto number = [](const std::string& s) -> int {
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return -1;
    return std::stoi(s);
  };
  const int k = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (k < 1 || n < 1 || k > n || n > kMaxShards) return bad();
  return ShardSpec{k, n};
}

double modelled_cost_s(const Case& c, int processes, int calls) {
  // Start-up of one worker process (interpreter + imports + device) and the
  // work of one call, both from the records the case carries (docs/scale-out.md).
  const BackendInfo fallback_backend;
  const WorkloadInfo fallback_workload;
  const BackendInfo* b = c.backend_info ? c.backend_info.get() : &fallback_backend;
  const WorkloadInfo* w = c.workload_info ? c.workload_info.get() : &fallback_workload;
  const double n = static_cast<double>(std::max(c.n, 1L));
  const double work = w->cost_coefficient * std::pow(n, w->cost_exponent) * b->cost_factor;
  return processes * b->startup_s + (processes + calls) * work;
}

std::vector<double> expected_costs(const std::vector<Case>& plan, const std::map<std::string, double>& measured,
                                   int processes, int calls) {
  // Scale the model to the measured cases so that both kinds of cost mix.
  double model_sum = 0, measured_sum = 0;
  for (const auto& c : plan)
    if (auto it = measured.find(c.id); it != measured.end()) {
      model_sum += modelled_cost_s(c, processes, calls);
      measured_sum += it->second;
    }
  const double scale = model_sum > 0 && measured_sum > 0 ? measured_sum / model_sum : 1.0;
  std::vector<double> out;
  for (const auto& c : plan) {
    auto it = measured.find(c.id);
    out.push_back(it != measured.end() ? it->second : scale * modelled_cost_s(c, processes, calls));
  }
  return out;
}

std::vector<int> assign_shards(const std::vector<double>& costs, int count) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(count, 1)), 0.0);
  std::vector<int> shard(costs.size(), 0);
  for (const auto i : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    shard[i] = static_cast<int>(least);
    load[static_cast<std::size_t>(least)] += costs[i];
  }
  return shard;
}

std::vector<int> assign_case_shards(const std::vector<Case>& plan, const std::vector<double>& costs, int count) {
  std::map<std::string, std::size_t> item_of;  // a case without its environment -> its item
  std::vector<std::size_t> item(plan.size());
  std::vector<double> item_cost;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto key = plan[i].env.empty() ? plan[i].id : without_environment(plan[i].id);
    const auto [it, added] = item_of.emplace(key, item_cost.size());
    if (added) item_cost.push_back(0.0);
    item[i] = it->second;
    item_cost[it->second] += costs[i];
  }
  const auto item_shard = assign_shards(item_cost, count);
  std::vector<int> shard(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) shard[i] = item_shard[item[i]];
  return shard;
}

std::string plan_digest(const std::vector<Case>& plan) {
  std::string ids;
  for (const auto& c : plan) ids += c.id + "\n";
  return sha256_hex(ids);
}

}  // namespace jitbench
