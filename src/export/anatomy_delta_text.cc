#include "export/anatomy_delta_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/anatomy_delta.h"
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

bool two_sided(const SubPhaseDelta& d) { return d.base_s && d.new_s; }

// Whether d moved the way `phase` did (a NaN change never does).
bool same_way(const SubPhaseDelta& d, const SubPhaseDelta& phase) { return d.change_s * phase.change_s > 0; }

// Whether d holds at least half of the phase's change, the same way.
bool holds_half(const SubPhaseDelta& d, const SubPhaseDelta& phase) {
  return same_way(d, phase) && std::abs(d.change_s) * 2 >= std::abs(phase.change_s);
}

// The item below `phase` that moved the same way by the most, among those
// measured on both sides when there is any below it (else among all); none
// when every candidate moved the other way (or not at all).
const SubPhaseDelta* largest_under(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& phase) {
  const bool any_two_sided =
      std::any_of(ds.begin(), ds.end(), [&](const SubPhaseDelta& d) { return is_below(d, phase) && two_sided(d); });
  const SubPhaseDelta* best = nullptr;
  for (const auto& d : ds)
    if (is_below(d, phase) && (two_sided(d) || !any_two_sided) && same_way(d, phase) &&
        (!best || std::abs(d.change_s) > std::abs(best->change_s)))
      best = &d;
  return best;
}

// What the line names below the phase; `answer`: it is where the change went
// ("of which"), else only the largest move below ("none of its sub-phases
// holds half of it").
struct WhereItWent {
  const SubPhaseDelta* item = nullptr;
  bool answer = false;
};

// Where the phase's change went: down from the phase, at each level the
// child measured on both sides that holds at least half of the phase's
// change (the largest such), as deep as that goes. A one-sided item (new,
// gone: often a renamed event) counts its whole time as change, so it is
// never on that path; it is the answer only when nothing below the phase was
// measured on both sides and it holds half. Else the largest move below the
// phase the same way (largest_under), named as no answer.
WhereItWent where_it_went(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& phase) {
  const SubPhaseDelta* at = nullptr;
  for (const SubPhaseDelta* parent = &phase;;) {
    const SubPhaseDelta* next = nullptr;
    for (const auto& d : ds)
      if (d.path.size() == parent->path.size() + 1 && is_below(d, *parent) && two_sided(d) && holds_half(d, phase) &&
          (!next || std::abs(d.change_s) > std::abs(next->change_s)))
        next = &d;
    if (!next) break;
    at = parent = next;
  }
  if (at) return {at, true};
  const auto* largest = largest_under(ds, phase);
  return {largest, largest && !two_sided(*largest) && holds_half(*largest, phase)};
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
  const auto [sub, answer] = where_it_went(ds, *phase);
  if (!sub) return line;
  if (!answer)
    return line + "; none of its sub-phases holds half of it (largest move below: " + sub->path.back() + " " +
           subphase_change(*sub) + ")";
  return line + ", of which " + sub->path.back() + " " + subphase_change(*sub);
}

std::string anatomy_delta_block(const std::vector<SubPhaseDelta>& ds, const std::string& indent) {
  if (ds.empty()) return "";
  std::string out = indent + anatomy_delta_line(ds) + "\n";
  for (const auto& d : compare::top_deltas(ds))
    out += fmt::format("{}  {:<60} {:>10} → {:<10} {}\n", indent, anatomy_path_label(d.path),
                       median_cell(d.base_s), median_cell(d.new_s),
                       subphase_change(d));
  return out;
}

}  // namespace jitbench
