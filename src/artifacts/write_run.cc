#include "artifacts/write_run.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>
#include <stdexcept>

#include "analysis/analysis.h"
#include "export/json/analysis_json.h"
#include "export/json/case_json.h"
#include "export/json/json_util.h"
#include "export/json/ml_suite.h"
#include "export/docs/summary_md.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/json_parse.h"
#include "util/sha256.h"

namespace jitbench {

namespace {
void add_ml_export(std::vector<FileWrite>& files, const RunHeader& h, const std::vector<CaseResult>& cases) {
  std::vector<MlCaseFile> ml;
  for (const auto& c : cases) {
    if (!in_ml_contract(c)) continue;
    const auto rel = "cases/" + c.c.id + ".json";
    auto text = json_text(ml_case(c, h.info.environment));
    ml.push_back({c.c.id, rel, sha256_hex(text), &c});
    files.push_back({"ml/" + rel, std::move(text)});
  }
  files.push_back({"ml/ml_suite.json", json_text(ml_suite_index(ml, h.deterministic, h.info.environment))});
  files.push_back({"ml/README_snippet_ml.md", ml_readme_snippet(ml)});
}

void write_index(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                 const Stopped* stopped) {
  const std::string finished_at = complete && !h.deterministic ? utc_now() : "";
  out.write_text(kIndexFile, json_text(index_json(h, cases, complete, finished_at, out.file_list(), stopped)));
}
}  // namespace

void write_run_artifacts(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                         const Stopped* stopped, std::vector<FileWrite> extra) {
  std::vector<FileWrite> files = std::move(extra);
  for (const auto& c : cases)
    files.push_back({"cases/" + c.c.id + ".json", c.recorded_json.empty() ? json_text(case_json(c)) : c.recorded_json});
  const Analysis analysis = analyze(cases, h.info.environment.ceilings());
  const auto releases = compare::release_rows(cases);
  files.push_back({"analysis.json", json_text(analysis_json(analysis, releases))});
  files.push_back({"summary.md", summary_md(h.info, cases, analysis, releases)});
  add_ml_export(files, h, cases);
  write_files_in(out.root(), files);
  kill_point("before_index");
  write_index(out, h, cases, complete, stopped);
}

void relist_files(const OutDir& out) {
  auto parsed = parse_json(read_file(out.root() / kIndexFile));
  if (auto* e = std::get_if<std::string>(&parsed)) throw std::runtime_error("index.json: " + *e);
  auto index = std::get<nlohmann::json>(std::move(parsed));
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : out.file_list()) files.push_back({{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
  index["files"] = files;
  out.write_text(kIndexFile, json_text(index));
}

bool write_stop_index(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& recorded,
                      const Stopped& stopped) {
  try {
    write_index(out, h, recorded, false, &stopped);
    return true;
  } catch (const WriteError&) {
  }
  // The last index stands; what it does not list goes, so that it stays true.
  const auto last = read_index(out.root() / kIndexFile);
  if (const auto* index = std::get_if<RunIndex>(&last)) {
    std::set<std::string> listed;
    for (const auto& f : index->files) listed.insert(f.path);
    for (const auto& f : out.file_list())
      if (!listed.count(f.path)) {
        try {
          remove_in(out.root(), f.path);
        } catch (const WriteError&) {
          // the disk that refused the index may refuse this too: the others still go
        }
      }
  }
  return false;
}

std::string fit_case_schema(CaseResult& r) {
  const auto problems = case_json_problems(r);
  if (problems.empty()) return "";
  const std::string detail = "its report does not fit the case schema: " + problems.front();
  const auto strip = [&](RunRecord& run) {
    run.process_start_s = run.import_s = run.setup_s = run.first_call_s = run.second_call_s = run.total_s =
        std::nullopt;
    run.calls_s.clear();
    run.worker = parse_worker_report(nlohmann::json::object());
    run.status = Status::Failed;
    run.reason = {ReasonCode::WorkerFailed, ""};
    run.detail = detail;
  };
  for (auto& run : r.cold) strip(run);
  for (auto& run : r.warm) strip(run);
  if (r.priming) strip(*r.priming);
  if (r.crosscheck) strip(*r.crosscheck);
  settle_status(r);
  if (const auto left = case_json_problems(r); !left.empty())
    throw std::logic_error(fmt::format("case {} breaks its schema: {}", r.c.id, left.front()));
  return problems.front();
}

}  // namespace jitbench
