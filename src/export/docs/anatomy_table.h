#pragma once
// summary.md's "Inside the compile" (run --anatomy): per case the tree of the
// largest items of its compile anatomy with their medians (results/anatomy.h;
// the whole kept tree is in the case file's anatomy.summary.nodes).
#include <string>
#include <vector>

#include "results/anatomy.h"
#include "results/model.h"

namespace jitbench {
// At most this many rows per case in summary.md.
inline constexpr int kAnatomyRowsShown = 16;
// One case's line above its tree (Markdown inline), in summary.md and the
// report's icicles: the process count, the agreement with the measured cold
// runs, whether those carried the profiler.
std::string anatomy_summary_line(const AnatomySummary& a);
// "" when no case has an anatomy.
std::string anatomy_section_md(const std::vector<CaseResult>& cases);
}  // namespace jitbench
