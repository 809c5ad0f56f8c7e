#pragma once
// summary.md's "Inside the compile" (run --anatomy): per case the tree of the
// largest items of its compile anatomy with their medians (results/anatomy.h;
// the whole kept tree is in the case file's anatomy.summary.nodes).
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {
// At most this many rows per case in summary.md.
inline constexpr int kAnatomyRowsShown = 16;
// "" when no case has an anatomy.
std::string anatomy_section_md(const std::vector<CaseResult>& cases);
}  // namespace jitbench
