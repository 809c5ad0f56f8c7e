#include "validate/cross_references.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "analysis/analysis.h"
#include "compare/releases.h"
#include "export/json/analysis_json.h"
#include "export/json/json_util.h"
#include "results/read.h"
#include "results/views.h"
#include "stats/stats.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/json_parse.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
bool same_number(const json& recorded, std::span<const double> xs) {
  const auto m = stats::median(xs);
  if (!m || recorded.is_null()) return !m && recorded.is_null();
  if (!recorded.is_number()) return false;
  const double r = recorded.get<double>();
  return std::fabs(r - *m) <= 1e-12 * std::max(1.0, std::fabs(*m));
}

// Each index entry against its case file.
void check_cases(const LoadedRun& run, const json& index_doc, CrossReferenceReport& rep) {
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const auto& entry = index_doc.at("cases").at(i);
    const auto& c = run.cases[i];
    const auto& path = run.index.cases[i].path;
    ++rep.checked;
    if (c.c.id != run.index.cases[i].id)
      rep.errors.push_back(fmt::format("{}: holds case '{}', the index says '{}'", path, c.c.id, run.index.cases[i].id));
    if (c.status != run.index.cases[i].status)
      rep.errors.push_back(fmt::format("{}: status {} but the index says {}", path, to_string(c.status),
                                       to_string(run.index.cases[i].status)));
    if (!same_number(entry.value("cold_ttfr_median_s", json()), cold_values(c, "ttfr_s")))
      rep.errors.push_back(path + ": its cold TTFR median is not the index's cold_ttfr_median_s");
    if (!same_number(entry.value("warm_call_median_s", json()), warm_values(c)))
      rep.errors.push_back(path + ": its warm call median is not the index's warm_call_median_s");
  }
}

// analysis.json: the index's cases, and (same build) exactly what they give.
void check_analysis(const fs::path& dir, const LoadedRun& run, CrossReferenceReport& rep) {
  if (!fs::is_regular_file(dir / "analysis.json")) return;
  const auto text = read_file(dir / "analysis.json");
  auto parsed = parse_json(text);
  if (auto* e = std::get_if<std::string>(&parsed)) {
    rep.errors.push_back("analysis.json: " + *e);
    return;
  }
  const json doc = std::get<json>(std::move(parsed));
  std::set<std::string> in_analysis, in_index;
  for (const auto& c : doc.value("cases", json::array())) in_analysis.insert(c.value("case", ""));
  for (const auto& c : run.index.cases) in_index.insert(c.id);
  ++rep.checked;
  if (in_analysis != in_index)
    rep.errors.push_back(fmt::format("analysis.json: lists {} case(s), the index {}: they are not the same cases",
                                     in_analysis.size(), in_index.size()));
  const auto sha = run.index.jitbench_git ? run.index.jitbench_git->sha : std::string();
  if (sha.empty() || sha != build_info().sha || build_info().dirty || run.index.jitbench_git->dirty) {
    rep.analysis_note = "analysis.json was written by another build of jitbench: its case list was checked, "
                        "its numbers were not recomputed";
    return;
  }
  ++rep.checked;
  rep.analysis_recomputed = true;
  const Analysis a = analyze(run.cases, run.environment.ceilings());
  if (json_text(analysis_json(a, compare::release_rows(run.cases))) != text)
    rep.errors.push_back("analysis.json: is not what the case files give (recomputed by the build that wrote it)");
}
}  // namespace

CrossReferenceReport check_cross_references(const fs::path& dir) {
  CrossReferenceReport rep;
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) {
    rep.errors.push_back(*e);
    return rep;
  }
  const auto& run = std::get<LoadedRun>(loaded);
  auto index_doc = parse_json(read_file(dir / "index.json"));
  if (auto* e = std::get_if<std::string>(&index_doc)) {
    rep.errors.push_back("index.json: " + *e);
    return rep;
  }
  check_cases(run, std::get<json>(index_doc), rep);
  check_analysis(dir, run, rep);
  return rep;
}

}  // namespace jitbench
