#pragma once
// Splitting a plan into N disjoint shards for N machines (a Slurm job array, a
// CI matrix): every case in exactly one shard, shards balanced by an expected
// cost — an earlier run's measured wall time per case where given, else a
// rough model by backend and size. Every shard computes the same assignment
// from the same plan and costs, so no coordinator is needed.
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "plan/plan.h"

namespace jitbench {

// "shard": which shard of which plan a `run --shard K/N` measured.
struct ShardSection {
  int index = 0, count = 0;
  std::string plan_digest;
  std::vector<std::string> plan;  // the whole plan's case ids, in order
  std::string costs;              // where the costs came from
  bool operator==(const ShardSection&) const = default;
};

struct ShardSpec {
  int index = 1;  // 1-based K of K/N
  int count = 1;  // N
};
// "K/N" with 1 <= K <= N <= kMaxShards; else a one-line error.
inline constexpr int kMaxShards = 10000;
std::variant<ShardSpec, std::string> parse_shard_spec(const std::string& text);

// Rough seconds a case costs with these run counts when nothing was measured:
// a process start per run (by backend: interpreter, imports, device start)
// plus the calls' work (by workload and size). Only its ratios matter.
double modelled_cost_s(const Case& c, int processes, int calls);

// Each case's expected cost: `measured` (case id -> seconds, from an earlier
// run) where it has the case, else the model scaled to the measured ones.
std::vector<double> expected_costs(const std::vector<Case>& plan, const std::map<std::string, double>& measured,
                                   int processes, int calls);

// Shard (0-based) of every case: longest expected cost first, each to the
// least loaded shard (ties: the lower shard, then plan order). Deterministic.
std::vector<int> assign_shards(const std::vector<double>& costs, int count);

// Shard of every case of `plan`, the environments of one case kept together:
// the cases that differ only in their environment (without_environment) are
// measured side by side (interleaved), so they are weighed as one item of
// their summed cost and land in one shard.
std::vector<int> assign_case_shards(const std::vector<Case>& plan, const std::vector<double>& costs, int count);

// sha256 of the plan's case ids in order: shards of one plan agree on it.
std::string plan_digest(const std::vector<Case>& plan);

}  // namespace jitbench
