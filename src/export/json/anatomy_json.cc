#include "export/json/anatomy_json.h"

#include <fmt/format.h>

#include "export/json/case_json.h"
#include "export/json/json_util.h"
#include "results/anatomy.h"

namespace jitbench {
using nlohmann::json;

namespace {
json node_json(const AnatomyNode& n) {
  json j = {{"path", n.path}, {"source", text_or_null(n.source)}, {"median_s", n.median_s}, {"runs", n.runs}};
  if (!n.thread.empty()) j["thread"] = n.thread;  // another thread's item: optional (jitbench.case.v6)
  if (n.thread_median_s) j["thread_median_s"] = *n.thread_median_s;
  return j;
}

json outside_json(const std::optional<AnatomyOutsideSummary>& o) {
  if (!o) return nullptr;
  return {{"runs", o->runs}, {"events", o->events}, {"wall_s", o->wall_s}, {"thread_s", o->thread_s},
          {"first_call_s", o->first_call_s}};
}

json anatomy_summary_json(const AnatomySummary& a) {
  json nodes = json::array();
  for (const auto& n : a.nodes) nodes.push_back(node_json(n));
  json out = {{"runs", a.runs},
          {"items_reported", a.items_reported},
          {"nodes", nodes},
          {"keep_rule", fmt::format("every phase; the {} longest items and any other of at least {:g}% of its parent, at "
                                    "most {}; the rest of a parent's children summed as '{}'; '{}' is what the children "
                                    "leave of their parent",
                                    kAnatomyLongest, kAnatomyShare * 100, kAnatomyMost, kAnatomyOther,
                                    kAnatomyUnattributed)},
          {"anatomy_phases_s", number_or_null(a.anatomy_phases_s)},
          {"measured_phases_s", number_or_null(a.measured_phases_s)},
          {"ratio", number_or_null(a.ratio)},
          {"agreement_bound", kAnatomyAgreement},
          {"agrees", a.agrees ? json(*a.agrees) : json(nullptr)},
          {"measured_runs_instrumented",
           a.measured_runs_instrumented ? json(*a.measured_runs_instrumented) : json(nullptr)}};
  out["outside_phases"] = outside_json(a.outside_phases);
  return out;
}
}  // namespace

json anatomy_json(const CaseResult& r) {
  if (r.anatomy_runs == 0 && r.anatomy.empty()) return nullptr;
  json runs = json::array();
  for (const auto& run : r.anatomy) runs.push_back(run_json(run));
  const auto summary = anatomy_summary(r);
  return {{"runs_requested", r.anatomy_runs},
          {"runs", runs},
          {"summary", summary ? anatomy_summary_json(*summary) : json(nullptr)}};
}

}  // namespace jitbench
