#include "artifacts/write_run.h"

#include "analysis/analysis.h"
#include "export/analysis_json.h"
#include "export/case_json.h"
#include "export/index_json.h"
#include "export/json_util.h"
#include "export/ml_suite.h"
#include "export/summary_md.h"
#include "util/clock.h"
#include "util/sha256.h"

namespace jitbench {

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
  out.write_text("ml/ml_suite.json", json_text(ml_suite_index(files, h.deterministic, h.info.environment)));
  out.write_text("ml/README_snippet_ml.md", ml_readme_snippet(files));
}
}  // namespace

void write_run_artifacts(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete) {
  for (const auto& c : cases) out.write_text("cases/" + c.c.id + ".json", json_text(case_json(c)));
  const Analysis analysis = analyze(cases);
  out.write_text("analysis.json", json_text(analysis_json(analysis)));
  out.write_text("summary.md", summary_md(h.info, cases, analysis));
  write_ml_export(out, h, cases);
  const std::string finished_at = complete && !h.deterministic ? utc_now() : "";
  out.write_text(kIndexFile, json_text(index_json(h, cases, complete, finished_at, out.file_list())));
}

}  // namespace jitbench
