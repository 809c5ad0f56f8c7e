#pragma once
// What the report's figures draw, computed from the result model: the input of
// the matplotlib script (src/report/figures/jitbench_figures), which only draws.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace jitbench {

struct FigureInfo {
  std::string key, title, note;
};
// Every figure the report may hold, in order; the script draws those it has data for.
const std::vector<FigureInfo>& report_figures();

// The report's "Inside the compile" section: one icicle per case with a
// compile anatomy (figure_data's "anatomy"), drawn by the figures package.
const FigureInfo& anatomy_figure();

// "mc_pi_100000_f32" for "numpy_mc_pi_100000_f32": the work a case measures.
std::string work_of(const Case& c);

nlohmann::json figure_data(const std::vector<CaseResult>& cases, const Analysis& analysis);

}  // namespace jitbench
