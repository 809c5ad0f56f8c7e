#include "artifacts/write_run.h"

#include "analysis/analysis.h"
#include "export/ml_suite.h"
#include "results/json.h"
#include "run/case_runner.h"
#include "util/fs.h"
#include "util/sha256.h"

namespace jitbench {
using nlohmann::json;

namespace {
void write_ml_export(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases) {
  std::vector<MlCaseFile> files;
  for (const auto& c : cases) {
    if (!in_ml_contract(c)) continue;
    const auto rel = "cases/" + c.c.id + ".json";
    const auto text = json_text(ml_case(c, h.info.environment));
    out.write_text("ml/" + rel, text);
    files.push_back({c.c.id, rel, sha256_hex(text), &c});
  }
  const json index = ml_suite_index(files, h.deterministic, h.info.environment);
  out.write_json("ml/ml_suite.json", index);
  out.write_text("ml/README_snippet_ml.md", ml_readme_snippet(index, files));
}
}  // namespace

void write_run_artifacts(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete) {
  json index_cases = json::array();
  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& c : cases) {
    const auto rel = "cases/" + c.c.id + ".json";
    out.write_json(rel, case_to_json(c));
    index_cases.push_back({{"case", c.c.id},
                           {"status", to_string(c.status)},
                           {"reason", c.reason.empty() ? json(nullptr) : json(c.reason)},
                           {"path", rel},
                           {"cold_ttfr_median_s", median_or_null(cold_values(c, "ttfr_s"))},
                           {"warm_call_median_s", median_or_null(warm_values(c))}});
    (c.status == Status::Ok ? n_ok : c.status == Status::Warn ? n_warn : n_failed)++;
  }
  const json analysis = analysis_json(cases);
  out.write_json("analysis.json", analysis);
  out.write_text("summary.md", markdown_summary(h.info, cases, analysis));
  write_ml_export(out, h, cases);

  const json index = {
      {"schema_version", kIndexSchema},
      {"jitbench_version", JITBENCH_VERSION},
      {"suite", {{"name", h.info.suite_name}, {"source", h.info.suite_source}}},
      {"command", h.argv},
      {"complete", complete},
      {"started_at", h.started_at.empty() ? json(nullptr) : json(h.started_at)},
      {"finished_at", (complete && !h.deterministic) ? json(utc_now()) : json(nullptr)},
      {"environment", "environment.json"},
      {"cases", index_cases},
      {"summary",
       {{"n_planned", h.info.n_planned},
        {"n_cases", cases.size()},
        {"n_ok", n_ok},
        {"n_warn", n_warn},
        {"n_failed", n_failed}}},
      {"files", out.file_list()}};
  out.write_json(kIndexFile, index);
}

}  // namespace jitbench
