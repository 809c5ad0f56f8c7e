#include "cli/selection.h"

#include <string>
#include <variant>

namespace jitbench {

Selection run_selection(const RunOptions& o, const Catalog& catalog, const std::vector<EnvironmentSpec>& envs) {
  Selection sel;
  // Only --env replaces the suite's environments (and with them each block's
  // list); without it the suite's own are planned, each block in those it names.
  if (!o.envs.empty()) sel.environments = envs;
  sel.backends = o.backends;
  sel.cache_policies = o.cache_policies;
  sel.precisions = o.precisions;
  for (const auto& spec : o.cases) {
    auto r = parse_case_spec(spec, catalog);
    if (auto* e = std::get_if<std::string>(&r)) throw UserError(*e);
    for (auto& c : std::get<std::vector<CaseSpec>>(r)) sel.cases.push_back(std::move(c));
  }
  return sel;
}

}  // namespace jitbench
