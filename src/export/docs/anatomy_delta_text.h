#pragma once
// The words for the sub-phases that moved between two sets of anatomy runs
// (compare/anatomy_delta.h), one form for `compare`, the releases table and
// `bisect`: "compile +900.00 ms (×2.10 [1.80–2.40]), of which
// backend_compile_and_load +700.00 ms (×2.40 [2.10–2.70])". An item on one side
// only reads "new" or "gone", never a ratio; a side with too few processes for
// a CI gives each side's n and range instead.
#include <string>
#include <vector>

#include "compare/anatomy_delta.h"

namespace jitbench {

// "compile › backend_compile_and_load › RunBackend".
std::string anatomy_path_label(const std::vector<std::string>& path);

// "+700.00 ms (×2.40 [2.10–2.70])", "+200.00 ms (new)", "−200.00 ms (gone)",
// "+700.00 ms (×2.40; n = 2, range 500.00–510.00 ms → n = 5, range 1.200–1.250 s)".
std::string subphase_change(const SubPhaseDelta& d);

// "compile › backend_compile_and_load › RunBackend", and " (on tf_xla-cpu-codegen)"
// for another thread's item.
std::string anatomy_item_label(const SubPhaseDelta& d);

// The line of a case: the phase that moved most and where its change went
// (compare::anatomy_verdict: the item that holds half of it, or the two or
// three that do together, each with its share of the change; another
// thread's item named with its thread group); "" without deltas.
std::string anatomy_delta_line(const std::vector<SubPhaseDelta>& deltas);

// compare's "Inside the compile" block of one case: the headline, then one
// indented line per item (its whole path), each prefixed by `indent`.
std::string anatomy_delta_block(const std::vector<SubPhaseDelta>& deltas, const std::string& indent);

}  // namespace jitbench
