#include "export/anatomy_delta_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "export/sampling_table.h"
#include "report/format.h"

namespace jitbench {
namespace {
std::string signed_seconds(double s) {
  if (s == 0) return "±0 s";
  return (s > 0 ? "+" : "−") + format_seconds(std::abs(s));
}

std::string median_cell(const std::optional<double>& s) {
  if (!s) return "—";
  return *s > 0 ? format_seconds(*s) : "0 s";
}

std::string side_range(std::size_t n, double lo, double hi) {
  if (lo == hi) return fmt::format("n = {}, all {}", n, lo > 0 ? format_seconds(lo) : "0 s");
  return fmt::format("n = {}, range {}", n, lo > 0 ? seconds_range(lo, hi) : "0–" + format_seconds(hi));
}

// Whether d lies below `phase` (its path a longer one that starts with the phase's).
bool is_below(const SubPhaseDelta& d, const SubPhaseDelta& phase) {
  return d.path.size() > phase.path.size() && std::equal(phase.path.begin(), phase.path.end(), d.path.begin());
}

// The item below `phase` that moved the same way by the most; none when
// every item below it moved the other way (or not at all).
const SubPhaseDelta* largest_under(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& phase) {
  const SubPhaseDelta* best = nullptr;
  for (const auto& d : ds)
    if (is_below(d, phase) && d.change_s * phase.change_s > 0 &&
        (!best || std::abs(d.change_s) > std::abs(best->change_s)))
      best = &d;
  return best;
}

// Where the phase's change went: the deepest item below it, measured on both
// sides, that moved the same way by at least half as much (the largest of
// those at that depth). A one-sided item (new, gone: often a renamed event)
// counts its whole time as change, so it is named only when no item measured
// on both sides is below the phase; then, as without such an item, the
// largest change below it the same way (none: no "of which", the change lies
// in what the sub-phases leave unattributed).
const SubPhaseDelta* where_it_went(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& phase) {
  const SubPhaseDelta* best = nullptr;
  for (const auto& d : ds) {
    if (!is_below(d, phase) || !d.base_s || !d.new_s) continue;
    if (d.change_s * phase.change_s <= 0 || std::abs(d.change_s) < std::abs(phase.change_s) / 2) continue;
    if (!best || d.path.size() > best->path.size() ||
        (d.path.size() == best->path.size() && std::abs(d.change_s) > std::abs(best->change_s)))
      best = &d;
  }
  return best ? best : largest_under(ds, phase);
}
}  // namespace

std::string anatomy_path_label(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : " › ") + p;
  return out;
}

std::string subphase_change(const SubPhaseDelta& d) {
  const auto change = signed_seconds(d.change_s);
  if (!d.base_s) return change + " (new)";
  if (!d.new_s) return change + " (gone)";
  if (!d.ratio) return fmt::format("{} (from 0; {} → {})", change, side_range(d.n_base, d.base_lo, d.base_hi),
                                   side_range(d.n_new, d.new_lo, d.new_hi));
  if (d.lo && d.hi) return fmt::format("{} (×{:.2f} [{:.2f}–{:.2f}])", change, *d.ratio, *d.lo, *d.hi);
  return fmt::format("{} (×{:.2f}; {} → {})", change, *d.ratio, side_range(d.n_base, d.base_lo, d.base_hi),
                     side_range(d.n_new, d.new_lo, d.new_hi));
}

std::string anatomy_delta_line(const std::vector<SubPhaseDelta>& ds) {
  if (ds.empty()) return "";
  const SubPhaseDelta* phase = &ds.front();
  for (const auto& d : ds)
    if (d.path.size() == 1) {
      phase = &d;
      break;
    }
  std::string line = anatomy_path_label(phase->path) + " " + subphase_change(*phase);
  const auto* sub = where_it_went(ds, *phase);
  if (!sub) return line;
  // An item that holds less than half the change is no answer to where it went: said so.
  if (std::abs(sub->change_s) * 2 < std::abs(phase->change_s))
    return line + "; no sub-phase holds half of it (the most: " + sub->path.back() + " " + subphase_change(*sub) + ")";
  return line + ", of which " + sub->path.back() + " " + subphase_change(*sub);
}

std::string anatomy_delta_block(const std::vector<SubPhaseDelta>& ds, const std::string& indent) {
  if (ds.empty()) return "";
  std::string out = indent + anatomy_delta_line(ds) + "\n";
  for (const auto& d : ds)
    out += fmt::format("{}  {:<60} {:>10} → {:<10} {}\n", indent, anatomy_path_label(d.path),
                       median_cell(d.base_s), median_cell(d.new_s),
                       subphase_change(d));
  return out;
}

}  // namespace jitbench
