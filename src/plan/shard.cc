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
  // Start-up of one worker process: interpreter + imports + device (docs/scale-out.md).
  static const std::map<std::string, double> kStart = {
      {"native", 0.01},       {"native_cuda", 0.5},     {"python", 0.05},       {"numpy", 0.2},
      {"numba", 1.0},         {"numba_parallel", 1.5},  {"jax_jit_cpu", 1.5},   {"jax_eager_cpu", 1.2},
      {"jax_jit_gpu", 3.0},   {"jax_eager_gpu", 2.5},   {"tensorflow", 5.0},    {"tensorflow_gpu", 7.0},
      {"torch_eager", 2.0},   {"torch_compile", 10.0},  {"torch_eager_gpu", 4.0}, {"torch_compile_gpu", 12.0},
      {"triton", 6.0}};
  const auto it = kStart.find(c.backend);
  const double start = it == kStart.end() ? 2.0 : it->second;
  const double n = static_cast<double>(std::max(c.n, 1L));
  double work = n * 1e-8;  // element-wise workloads: ~1e8 elements a second
  if (c.workload == "matmul") work = 2 * n * n * n / 1e10;
  if (c.backend == "python") work *= 100;  // plain loops
  return processes * start + (processes + calls) * work;
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

std::string plan_digest(const std::vector<Case>& plan) {
  std::string ids;
  for (const auto& c : plan) ids += c.id + "\n";
  return sha256_hex(ids);
}

}  // namespace jitbench
