#include "export/json/counts_json.h"

#include "export/json/case_json.h"
#include "export/json/json_util.h"
#include "results/counts.h"

namespace jitbench {
using nlohmann::json;

json run_counts_json(const RunCounts& c) {
  json segments = json::array();
  for (const auto& s : c.segments) segments.push_back({{"name", s.name}, {"instructions", s.instructions}});
  return {{"source", c.source},       {"segments", segments},     {"warm_calls", c.warm_calls},
          {"first_call_split", c.first_call_split}, {"scope", c.scope}, {"fake", c.fake}};
}

namespace {
json setup_json(const CountSetup& s) {
  return {{"source", s.source}, {"chosen", s.chosen},     {"tool", s.tool},           {"version", s.version},
          {"options", s.options}, {"controls", s.controls}, {"calls", s.calls},      {"timeout_s", s.timeout_s},
          {"jobs", s.jobs}};
}

json summary_json(const CaseResult& r) {
  json phases = json::array();
  for (const auto& p : count_summary(r))
    phases.push_back({{"phase", p.phase}, {"n", p.n}, {"median", p.median}, {"min", p.min}, {"max", p.max},
                      {"spread_pct", number_or_null(p.spread_pct)}});
  std::string split;
  for (const auto& run : r.counted)
    if (run.status == Status::Ok && run.counts) split = run.counts->first_call_split;
  return {{"source", text_or_null(count_source(r))}, {"first_call_split", text_or_null(split)}, {"phases", phases}};
}
}  // namespace

json counts_json(const CaseResult& r) {
  if (!r.count) return nullptr;
  json runs = json::array();
  for (const auto& run : r.counted) runs.push_back(run_json(run));
  return {{"runs_requested", r.count_runs},
          {"setup", setup_json(*r.count)},
          {"unsupported", text_or_null(r.count->unsupported)},
          {"runs", runs},
          {"summary", summary_json(r)}};
}

}  // namespace jitbench
