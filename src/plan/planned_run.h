#pragma once
// A run's plan as a command measures it: the suite, the whole plan and the
// cases of this run (a shard's, or all), each case's expected cost, and the
// shard section its index records.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/environments.h"
#include "config/input_copies.h"
#include "config/suite.h"
#include "plan/plan.h"
#include "plan/shard.h"

namespace jitbench {

// The cases a run's options select, in order, and the shard it measures.
struct PlannedRun {
  Suite suite;
  std::vector<Case> full;          // the whole plan
  std::vector<Case> cases;         // what this run measures: the shard's, or the whole plan
  std::vector<double> costs;       // expected seconds per case of `full`
  std::vector<int> shard_of;       // 0-based shard per case of `full` (all 0 unsharded)
  std::optional<ShardSection> shard;  // the index's "shard" section; none unsharded
  std::vector<EnvironmentSpec> environments;  // the environments every case runs in (none: the run's own)
  InputCopies inputs;  // where a resumed or replicated run reads its inputs from (none: the paths given)
};

// Costs p.full (with `processes` processes and `calls` warm calls per case:
// `measured`, an earlier run's seconds per case, where it has the case, else
// the model) and takes the cases this run measures: all of them, or with
// `shard` K/N those of shard K (a case's environments kept in one shard) and
// the index's shard section. `costs_from`: the --costs directory ("" none).
void cost_and_shard(PlannedRun& p, int processes, int calls, const std::map<std::string, double>& measured,
                    const std::optional<ShardSpec>& shard, const std::string& costs_from);

// The expected seconds of each case the run measures (p.cases), from the plan's cost model.
std::vector<double> costs_of_cases(const PlannedRun& p);

}  // namespace jitbench
