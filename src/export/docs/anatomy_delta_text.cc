#include "export/docs/anatomy_delta_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/anatomy_delta.h"
#include "compare/anatomy_verdict.h"
#include "export/sections/sampling.h"
#include "report/format.h"
#include "stats/sequential.h"

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

// An item's name in the line: its last name, and the thread group it ran on when not the dispatching thread.
std::string item_name(const SubPhaseDelta& d) {
  return d.thread.empty() ? d.path.back() : fmt::format("{} on {}", d.path.back(), d.thread);
}

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

// "53% [45–60%]", or "53%" without an interval.
std::string share_text(const compare::ChangeShare& s) {
  if (s.lo && s.hi) return fmt::format("{} [{:.0f}–{:.0f}%]", percent(s.share), 100 * *s.lo, 100 * *s.hi);
  return percent(s.share);
}

// A member of the group: its change and share, and where its own change went when one item below holds it.
std::string member_text(const compare::NamedItem& m) {
  const auto* top = m.via.empty() ? m.item : m.via.front();
  std::string out = fmt::format("{} {}, {}", item_name(*top), subphase_change(*top), share_text(m.share));
  if (m.item != top) out += fmt::format(", of which {} {}", item_name(*m.item), subphase_change(*m.item));
  return out;
}

std::string together_text(const compare::AnatomyVerdict& v) {
  std::string out = fmt::format("together {} of the change: ", share_text(*v.together_share));
  for (std::size_t i = 0; i < v.together.size(); ++i)
    out += (i == 0 ? "" : i + 1 == v.together.size() ? "; and " : "; ") + member_text(v.together[i]);
  return out;
}
}  // namespace

std::string anatomy_item_label(const SubPhaseDelta& d) {
  const auto path = anatomy_path_label(d.path);
  return d.thread.empty() ? path : fmt::format("{} (on {})", path, d.thread);
}

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
  if (d.lo && d.hi)
    return fmt::format("{} (×{} [{}–{}])", change, format_ratio(*d.ratio), format_ratio(*d.lo), format_ratio(*d.hi));
  return fmt::format("{} (×{}; {} → {})", change, format_ratio(*d.ratio), side_range(d.n_base, d.base_lo, d.base_hi),
                     side_range(d.n_new, d.new_lo, d.new_hi));
}

std::string anatomy_delta_line(const std::vector<SubPhaseDelta>& ds) {
  if (ds.empty()) return "";
  const auto v = compare::anatomy_verdict(ds);
  std::string line = anatomy_path_label(v.phase->path) + " " + subphase_change(*v.phase);
  if (!v.alone.empty()) {
    const auto& deepest = v.alone.back();
    line += fmt::format(", of which {} {}, {} of the change", item_name(*deepest.item), subphase_change(*deepest.item),
                        share_text(deepest.share));
  }
  if (!v.together.empty()) line += (v.alone.empty() ? ", of which " : "; in it ") + together_text(v);
  if (v.largest)
    line += fmt::format("; none of its sub-phases holds half of it, alone or two or three together (largest move "
                        "below: {} {}, {})",
                        item_name(*v.largest->item), subphase_change(*v.largest->item), share_text(v.largest->share));
  const bool shares = !v.alone.empty() || !v.together.empty() || v.largest;
  if (shares && !v.intervals)
    line += fmt::format(" (shares without an interval: fewer than {} anatomy processes a side)",
                        stats::min_values_for_interval(stats::kReportConfidence));
  return line;
}

std::string anatomy_delta_block(const std::vector<SubPhaseDelta>& ds, const std::string& indent) {
  if (ds.empty()) return "";
  std::string out = indent + anatomy_delta_line(ds) + "\n";
  for (const auto& d : compare::top_deltas(ds))
    out += fmt::format("{}  {:<60} {:>10} → {:<10} {}\n", indent, anatomy_item_label(d),
                       median_cell(d.base_s), median_cell(d.new_s),
                       subphase_change(d));
  return out;
}

}  // namespace jitbench
