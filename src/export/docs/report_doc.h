#pragma once
// report/report.html (self-contained) and report/report.md: a run's answer
// first (who gave the first result soonest, who is fastest warm, when each JIT
// pays for itself), then the environment, every warning, the figures and every
// case. Both render one list of sections (kReportSections in report_doc.cc;
// those summary.md shows too are built once in export/sections/): report.md
// is written here; report.html is rendered by the figures package's template
// from report_page_json (Jinja2, beside the figures).
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "results/read.h"

namespace jitbench {

struct ReportWarning {
  std::string kind, case_id, text;
};
// Everything a reader must know before trusting a number.
std::vector<ReportWarning> report_warnings(const std::vector<CaseResult>& cases, const Analysis& analysis);

// What report.html shows, for its template (src/report/figures/jitbench_figures/templates/report.html):
// the sections in order, each with its kind (its shape: "section", "warnings", "figures", "icicles"), words
// and tables; the figures' keys, titles and notes.
nlohmann::json report_page_json(const LoadedRun& run, const Analysis& analysis);
// The figure script's whole input for a report: figure_data plus "report_page".
nlohmann::json report_input(const LoadedRun& run, const Analysis& analysis);
// svgs: figure key -> inline SVG, for the figures that were drawn (report.md names them).
std::string report_md(const LoadedRun& run, const Analysis& analysis, const std::map<std::string, std::string>& svgs);

}  // namespace jitbench
