#pragma once
// The words for the sub-phases that moved between two sets of anatomy runs
// (compare/anatomy_delta.h), one form for `compare`, the releases table and
// `bisect`: "compile +0.900 s (×2.10 [1.80–2.40]), of which
// backend_compile_and_load +0.700 s (×2.40 [2.10–2.70])". An item on one side
// only reads "new" or "gone", never a ratio; a side with too few processes for
// a CI gives each side's n and range instead.
#include <string>
#include <vector>

#include "compare/anatomy_delta.h"

namespace jitbench {

// "compile › backend_compile_and_load › RunBackend".
std::string anatomy_path_label(const std::vector<std::string>& path);

// "+0.700 s (×2.40 [2.10–2.70])", "+0.200 s (new)", "−0.200 s (gone)",
// "+0.700 s (×2.40; n = 2, range 0.50–0.51 s → n = 5, range 1.20–1.25 s)".
std::string subphase_change(const SubPhaseDelta& d);

// The line of a case: the phase that moved most, "of which" the sub-phase
// under it that moved most (by its last name); "" without deltas.
std::string anatomy_headline(const std::vector<SubPhaseDelta>& deltas);

// compare's "Inside the compile" block of one case: the headline, then one
// indented line per item (its whole path), each prefixed by `indent`.
std::string anatomy_delta_block(const std::vector<SubPhaseDelta>& deltas, const std::string& indent);

}  // namespace jitbench
