#pragma once
// Which sub-phases of the compile moved between two sets of anatomy runs
// (docs/anatomy.md): per item path, each side's median over its anatomy
// processes (0 in a process that lacks it, as the case's own summary takes
// it), the change in seconds and the NEW/BASE ratio of medians with compare's
// bootstrap 95% CI (ratio_of_medians: one sample per process, as compare does
// for the phases), sorted by the absolute change. Used by `compare`, the
// releases table and `bisect`; the words are export/docs/anatomy_delta_text.cc's.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "results/anatomy.h"
#include "results/model.h"

namespace jitbench::compare {

// A ratio's CI needs, on each side, the processes the Sampling rule asks of
// every interval jitbench prints (stats::median_interval_possible: 6 at 95%);
// with fewer, the change is shown with each side's n and range instead.
bool anatomy_ratio_ci_possible(std::size_t n_base, std::size_t n_new);
// How many items a case lists, the largest changes first (its phases, the
// items of depth 1, are listed whatever their rank).
inline constexpr std::size_t kAnatomyDeltaTop = 8;

// The item type, SubPhaseDelta, is results/anatomy.h's (bisect's record holds it).

// The items of two sets of anatomy runs (a case's `anatomy` runs; only ok runs
// with items count), the largest absolute change (to the nanosecond) first
// (ties: shallower path first, then by path), at most `top` (0: all) besides
// the phases. Empty when either side has no such run.
std::vector<SubPhaseDelta> anatomy_deltas(const std::vector<RunRecord>& base, const std::vector<RunRecord>& next,
                                          std::size_t top = kAnatomyDeltaTop);
// The `top` largest of anatomy_deltas(..., 0)'s items and every phase: what a
// case lists. The one-line form reads the whole list: where a change went may
// lie below the cut (renamed events, new and gone, rank high).
std::vector<SubPhaseDelta> top_deltas(std::vector<SubPhaseDelta> all, std::size_t top = kAnatomyDeltaTop);

}  // namespace jitbench::compare
