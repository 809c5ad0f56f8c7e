// `jitbench plan`: the cases a run with the same selection would measure, in
// the order it would measure them, with their expected cost and (with
// --shard K/N) the shard each falls in: what a scheduler splits.
#include <fmt/format.h>

#include "commands/commands.h"
#include "export/json/json_util.h"
#include "export/json/plan_json.h"
#include "util/say.h"

namespace jitbench {

int cmd_plan(const PlanOptions& opts) {
  const PlannedRun p = make_planned_run(opts.selection);
  const int count = p.shard ? p.shard->count : 1;
  const int index = p.shard ? p.shard->index : 0;
  if (opts.json) {
    write_product(json_text(plan_json(p.suite, p.full, p.costs, p.shard_of, index, count,
                                      p.shard ? p.shard->costs : "")),
                  "the plan");
    return 0;
  }
  double total = 0;
  for (std::size_t i = 0; i < p.full.size(); ++i)
    if (!index || p.shard_of[i] == index - 1) total += p.costs[i];
  std::string text = fmt::format("# suite '{}': {} of {} cases{}, expected ~{:.0f} s (costs: {})\n", p.suite.name,
                                 p.cases.size(), p.full.size(), index ? fmt::format(" (shard {}/{})", index, count) : "",
                                 total, p.shard ? p.shard->costs : "model (backend and size)");
  for (std::size_t i = 0; i < p.full.size(); ++i)
    if (!index || p.shard_of[i] == index - 1) text += fmt::format("{:<60} ~{:.1f} s\n", p.full[i].id, p.costs[i]);
  write_product(text, "the plan");
  return 0;
}

}  // namespace jitbench
