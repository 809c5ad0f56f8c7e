#pragma once
// report/report.html (self-contained) and report/report.md: a run's answer
// first (who gave the first result soonest, who is fastest warm, when each JIT
// pays for itself), then the environment, every warning, the figures and every
// case. Tables through report/table.h; figures come in as SVG text.
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

// svgs: figure key -> inline SVG, for the figures that were drawn.
std::string report_html(const LoadedRun& run, const Analysis& analysis, const std::map<std::string, std::string>& svgs);
std::string report_md(const LoadedRun& run, const Analysis& analysis, const std::map<std::string, std::string>& svgs);

}  // namespace jitbench
