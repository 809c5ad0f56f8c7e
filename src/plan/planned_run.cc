#include "plan/planned_run.h"

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

}  // namespace jitbench
