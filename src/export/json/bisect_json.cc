#include "export/json/bisect_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "compare/anatomy_delta.h"
#include "export/json/json_util.h"
#include "export/json/schema.h"
#include "report/format.h"
#include "report/table.h"
#include "util/clock.h"

namespace jitbench {
namespace {
nlohmann::json bisect_evidence_json(const std::vector<BisectEvidence>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({{"case", r.case_id}, {"median", r.median}, {"good_median", r.good_median}, {"unit", r.unit},
                   {"rule", r.rule}, {"ratio", r.ratio}, {"ratio_ci95", {r.ratio_lo, r.ratio_hi}},
                   {"p", r.p ? nlohmann::json(*r.p) : nlohmann::json()}, {"testable", r.testable},
                   {"regression", r.regression}, {"decision", r.decision}});
  return out;
}
nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
nlohmann::json bisect_anatomy_json(const std::vector<BisectAnatomy>& cases) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& d : compare::top_deltas(c.items)) {
      items.push_back({{"path", d.path}, {"base_median_s", optional_number(d.base_s)},
                       {"new_median_s", optional_number(d.new_s)}, {"change_s", d.change_s},
                       {"n_base", d.n_base}, {"n_new", d.n_new}, {"base_range_s", {d.base_lo, d.base_hi}},
                       {"new_range_s", {d.new_lo, d.new_hi}}, {"ratio", optional_number(d.ratio)},
                       {"ratio_ci95", d.lo && d.hi ? nlohmann::json{*d.lo, *d.hi} : nlohmann::json()}});
      if (!d.thread.empty()) items.back()["thread"] = d.thread;  // optional in jitbench.bisect.v4
    }
    out.push_back({{"case", c.case_id}, {"items", items}});
  }
  return out;
}
nlohmann::json bisect_step_json(const BisectStep& s) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : s.cases) {
    cases.push_back({{"case", c.case_id}, {"status", c.status}, {"reason", text_or_null(c.reason)}});
    if (!c.grade.empty())  // optional in jitbench.bisect.v5
      cases.back()["grade"] = c.grade, cases.back()["others_cpus_median"] = optional_number(c.others_cpus);
  }
  nlohmann::json out = {{"version", s.version}, {"role", s.role}, {"dir", s.dir},
                        {"exit_code", s.exit_code}, {"verdict", s.verdict}, {"cases", cases}};
  if (s.against_good) out["against_good"] = bisect_evidence_json(*s.against_good);
  if (!s.commit.empty()) out["commit"] = s.commit, out["subject"] = s.subject;
  return out;
}
nlohmann::json bisect_result_json(const BisectResult& r) {
  nlohmann::json out = {{"status", r.status}, {"first_bad", text_or_null(r.first_bad)},
                        {"last_good", text_or_null(r.last_good)}};
  if (r.unmeasurable) out["unmeasurable"] = *r.unmeasurable;
  if (r.evidence) out["evidence"] = bisect_evidence_json(*r.evidence);
  if (r.more_runs_needed) out["more_runs_needed"] = *r.more_runs_needed;
  if (r.runs_needed_estimate) out["runs_needed_estimate"] = *r.runs_needed_estimate;
  if (r.decidable) out["decidable"] = *r.decidable;
  if (r.searched) {
    out["skipped"] = r.skipped;
    out["overturned"] = r.overturned;
    out["confirmation"] = r.confirmation ? bisect_evidence_json(*r.confirmation) : nlohmann::json();
    if (!r.skipped_between.empty()) out["skipped_between"] = r.skipped_between;
  }
  if (r.boundary_anatomy) out["boundary_anatomy"] = bisect_anatomy_json(*r.boundary_anatomy);
  return out;
}
}  // namespace

nlohmann::json bisect_document_json(const BisectDocument& d, const std::string& finished_at) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : d.steps) steps.push_back(bisect_step_json(s));
  nlohmann::json doc = {{"schema_version", kBisectSchema},
          {"package", d.package},
          {"good", d.good},
          {"bad", d.bad},
          {"with", d.with},
          {"metric", d.metric},
          {"threshold_pct", d.threshold_pct},
          {"alpha", d.alpha},
          {"candidates", d.candidates},
          {"steps", steps},
          {"result", bisect_result_json(d.result)},
          {"finished_at", finished_at}};
  if (d.git)
    doc["git"] = {{"repository", d.git->repository}, {"good", d.git->good_rev}, {"bad", d.git->bad_rev},
                  {"first_parent", true}};
  return doc;
}

std::string bisect_json(const BisectDocument& d) {
  const nlohmann::json doc = bisect_document_json(d, utc_now());
  for (const auto& e : validate_against(doc, kBisectSchema))  // a document that breaks its schema is a bug here
    throw std::runtime_error("bisect.json does not match its schema: " + e);
  return json_text(doc);
}

namespace {
// "found: 1.3 is the first release with the regression of ttfr (last good 1.2)".
std::string bisect_outcome(const BisectDocument& d) {
  const auto& r = d.result;
  const std::string what = d.git ? "commit" : "release";
  if (r.status == "found" || r.status == "unconfirmed")
    return fmt::format("{}: `{}` {} the first {} with the regression of {} (last good `{}`){}", r.status, r.first_bad,
                       r.status == "found" ? "is" : "looks like", what, d.metric, r.last_good,
                       r.status == "found" ? ", confirmed by measuring both again"
                                           : ", but measuring both again did not confirm it");
  if (r.status == "no_regression")
    return fmt::format("no regression of {} from `{}` to `{}` above {:g}%", d.metric, d.good, d.bad, d.threshold_pct);
  if (r.status == "inconclusive")
    return fmt::format("inconclusive: `{}` against `{}` neither shows nor rules out a regression of {} beyond {:g}%",
                       d.bad, d.good, d.metric, d.threshold_pct);
  return fmt::format("{}{}", r.status, r.unmeasurable ? fmt::format(": `{}` gave no comparable measurement",
                                                                     *r.unmeasurable) : "");
}

std::string evidence_value(const BisectEvidence& e, double v) {
  return e.unit == "instructions" ? format_count(v) : format_seconds(v);
}
}  // namespace

std::string bisect_markdown(const BisectDocument& d) {
  const auto& r = d.result;
  const auto* rows = r.confirmation ? &*r.confirmation : r.evidence ? &*r.evidence : nullptr;
  Table t;
  t.columns = {"case", "good", "bad", "ratio [95% CI]", "p", "decision"};
  const int digits = 3;
  for (const auto& e : rows ? *rows : std::vector<BisectEvidence>{})
    t.add({"`" + e.case_id + "`", evidence_value(e, e.good_median), evidence_value(e, e.median),
           fmt::format("{:.{}f} [{:.{}f}–{:.{}f}]{}", e.ratio, digits, e.ratio_lo, digits, e.ratio_hi, digits,
                       e.rule == "spread" ? "*" : ""),
           e.p ? fmt::format("{:.3g}", *e.p) : std::string("—"), e.decision});
  std::string out = fmt::format("### jitbench bisect: `{}` {} (threshold {:g}%)\n\n",
                                d.git ? d.git->repository : d.package, d.metric, d.threshold_pct);
  out += "**" + bisect_outcome(d) + "**\n";
  if (!t.empty())
    out += fmt::format("\n{} ({}):\n\n", r.confirmation ? "The boundary, measured again side by side" : "The ends",
                       r.confirmation ? fmt::format("`{}` against `{}`", r.first_bad, r.last_good)
                                      : fmt::format("`{}` against `{}`", d.bad, d.good)) +
           to_markdown(t);
  if (rows && std::any_of(rows->begin(), rows->end(), [](const BisectEvidence& e) { return e.rule == "spread"; }))
    out += "\n\\* an instruction count: the interval is its processes' spread, judged without a test\n";
  return out;
}

}  // namespace jitbench
