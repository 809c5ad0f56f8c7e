#pragma once
// Where a phase's change went between two sets of anatomy runs: the "of
// which" rule of the line that `compare`, the releases table and `bisect`
// print (docs/anatomy.md). Each named item's share of the phase's change
// carries its uncertainty across each side's anatomy processes: a bootstrap
// 95% interval, where each side has the processes the Sampling rule asks of
// an interval (6 at 95%); with fewer, the shares are point estimates and the
// verdict says so. Pure functions over compare::anatomy_deltas' items; the
// words are export/docs/anatomy_delta_text.cc's.
#include <optional>
#include <vector>

#include "results/anatomy.h"

namespace jitbench::compare {

// What share of `whole`'s change some items hold together: the sum of their
// changes over whole's (medians NEW − BASE), and its bootstrap 95% interval
// (processes resampled on each side, every item and `whole` read from the same
// resampled processes; a resample where `whole` did not move the same way
// counts as a share of 0). No interval without the per-process values or
// with fewer processes a side than an interval needs.
struct ChangeShare {
  double share = 0;
  std::optional<double> lo, hi;
  bool operator==(const ChangeShare&) const = default;
};
ChangeShare share_of_change(const std::vector<const SubPhaseDelta*>& items, const SubPhaseDelta& whole);

// One item the verdict names: the item (the deepest one its change leads
// to), the items from where it was chosen down to it, and its share of the
// phase's change.
struct NamedItem {
  const SubPhaseDelta* item = nullptr;
  std::vector<const SubPhaseDelta*> via;  // group members only: the chosen child first, `item` last
  ChangeShare share;
};

struct AnatomyVerdict {
  const SubPhaseDelta* phase = nullptr;  // the phase that moved most; null without deltas
  // Down from the phase, the child that holds at least half of the phase's
  // change — the lower end of its interval, or its point estimate without
  // one — as deep as that goes (measured on both sides; where nothing below
  // the phase was, the largest one-sided item at any depth that holds half:
  // a renamed event counts its whole time as change). The last one is what
  // the line names.
  std::vector<NamedItem> alone;
  // Below the last named (or the phase): else the two or three children that
  // together hold half of the change that way, largest first (the fewest that
  // do, and a third whose share's interval reaches the second's: the noise
  // would name either), each followed down while one child holds half of its
  // own change.
  std::vector<NamedItem> together;
  std::optional<ChangeShare> together_share;
  // Nothing named: the largest move below the phase the same way (none when
  // every item moved the other way).
  std::optional<NamedItem> largest;
  bool intervals = false;  // whether the shares carry intervals
};

// The verdict over anatomy_deltas(..., 0)'s items (the whole list).
AnatomyVerdict anatomy_verdict(const std::vector<SubPhaseDelta>& deltas);

}  // namespace jitbench::compare
