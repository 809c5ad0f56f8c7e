#pragma once
// What a run's options select, built from the parsed options: the planner
// (plan/plan.h, make_plan) takes it as it is.
#include <vector>

#include "cli/options.h"
#include "config/catalog.h"
#include "config/environments.h"
#include "plan/plan.h"

namespace jitbench {

// --backends, --cases (each resolved in `catalog`, which holds the user's
// workloads), --cache-policy and --precision; `envs`: the environments the
// run measures in, which replace the suite's only when --env gave them.
// Throws UserError for a --cases entry the catalog does not know.
Selection run_selection(const RunOptions& o, const Catalog& catalog, const std::vector<EnvironmentSpec>& envs);

}  // namespace jitbench
