#include "export/docs/site_json.h"

#include <cmath>

namespace jitbench {
using nlohmann::json;

namespace {
std::string signer_text(const RegistryEntry& e) {  // Markdown-inline: the template converts it
  if (!e.signature) return "unsigned";
  const auto principal = e.signature->principal.value_or("");
  return principal.empty() ? "key `" + e.signature->key + "` (signer not checked)"
                           : "**" + principal + "** (`" + e.signature->key + "`)";
}

// A side's grade for the pages: "quiet", "busy (others 1.1 of 2 CPUs)", ...,
// "not reported" (docs/noise.md, "Grades").
json grade_json(const InterferenceShare& s) { return s.grade_text(); }

json steps_json(const std::vector<compare::FlaggedStep>& steps) {
  json out = json::array();
  for (const auto& f : steps)
    out.push_back({{"machine", f.machine}, {"from", f.from_id}, {"to", f.to_id}, {"case", f.case_id},
                   {"metric", f.metric}, {"ratio", f.ratio}, {"lo", f.lo}, {"hi", f.hi}, {"p", std::isnan(f.p) ? json() : json(f.p)},
                   {"status_change", f.status_change}, {"software_changed", f.environment_changed},
                   {"from_grade", grade_json(f.from_interference)}, {"to_grade", grade_json(f.to_interference)}});
  return out;
}

json snapshots_json(const SitePage& p) {
  json out = json::array();
  for (std::size_t k = 0; k < p.entries.size(); ++k) {
    const auto& e = p.entries[k];
    out.push_back({{"n", k + 1}, {"id", e.id}, {"published_at", e.published_at}, {"suite", e.suite},
                   {"machine", e.machine}, {"software", e.environment_digest}, {"jitbench", e.jitbench_git.describe},
                   {"ok", e.n_ok}, {"warn", e.n_warn}, {"failed", e.n_failed}, {"signer", signer_text(e)},
                   {"path", e.path}, {"has_report", static_cast<bool>(p.has_report[k])}});
  }
  return out;
}

json series_json(const compare::HistorySeries& s) {
  json points = json::array();
  for (const auto& pt : s.points)
    points.push_back({{"snapshot", pt.snapshot}, {"median", pt.median}, {"lo", pt.lo}, {"hi", pt.hi},
                      {"n", pt.n}, {"flagged", pt.flagged}, {"grade", grade_json(pt.interference)}});
  return {{"metric", s.metric}, {"machine", s.machine}, {"software", s.environment_digest}, {"points", points}};
}
}  // namespace

json site_json(const SitePage& p) {
  json cases = json::array();
  for (const auto& id : p.history.case_ids) {
    json series = json::array();
    for (const auto& s : p.history.series)
      if (s.case_id == id) series.push_back(series_json(s));
    cases.push_back({{"id", id}, {"series", series}});
  }
  return {{"site", {{"generated_at", p.generated_at}, {"gate_pct", p.gate_pct}, {"alpha", p.alpha},
                    {"snapshots", snapshots_json(p)}, {"metrics", p.history.metrics}, {"cases", cases},
                    {"since_last", steps_json(p.history.since_last)}, {"flagged", steps_json(p.history.flagged)}}}};
}

}  // namespace jitbench
