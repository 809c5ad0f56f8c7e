#include "export/docs/anatomy_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/format.h"
#include "report/table.h"
#include "results/anatomy.h"

namespace jitbench {
namespace {
// The rows shown: every phase, then the longest other items (a child only
// with its parent shown), in the tree's order.
std::vector<const AnatomyNode*> anatomy_rows(const AnatomySummary& a) {
  std::vector<const AnatomyNode*> sorted;
  for (const auto& n : a.nodes) sorted.push_back(&n);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* x, auto* y) {
    return x->path.size() == 1 && y->path.size() != 1 ? true
           : x->path.size() != 1 && y->path.size() == 1 ? false
                                                       : x->median_s > y->median_s;
  });
  std::vector<std::vector<std::string>> shown;
  for (const auto* n : sorted) {
    if (static_cast<int>(shown.size()) >= kAnatomyRowsShown) break;
    if (n->median_s <= 0 && n->thread_median_s.value_or(0) <= 0) continue;  // a pool's item: its thread time shows
    const std::vector<std::string> parent(n->path.begin(), n->path.end() - 1);
    if (n->path.size() > 1 && std::find(shown.begin(), shown.end(), parent) == shown.end()) continue;
    shown.push_back(n->path);
  }
  std::vector<const AnatomyNode*> rows;
  for (const auto& n : a.nodes)
    if (std::find(shown.begin(), shown.end(), n.path) != shown.end()) rows.push_back(&n);
  return rows;
}

// What the events cover of the first call outside every phase: not in the tree above.
std::string outside_md(const AnatomySummary& a) {
  if (!a.outside_phases)
    return "\nOutside every phase: not reported (the anatomy processes did not say what their events cover there).\n";
  const auto& o = *a.outside_phases;
  return fmt::format("\nOutside every phase (dispatch, execution; in no item above): the framework's events cover {} of "
                     "the first call's {} outside its phases ({:g} events, {} of thread time; medians of {} "
                     "process{}).\n",
                     format_seconds(o.wall_s), format_seconds(o.first_call_s), o.events, format_seconds(o.thread_s),
                     o.runs, o.runs == 1 ? "" : "es");
}

std::string case_anatomy_md(const CaseResult& c, const AnatomySummary& a) {
  std::string md = fmt::format("\n**{}** — {}\n\n", md_literal(c.c.id), anatomy_summary_line(a));
  const auto rows = anatomy_rows(a);
  // Another thread's items: the thread group they ran on and their thread time beside the wall time.
  const bool threads = std::any_of(rows.begin(), rows.end(), [](auto* n) { return !n->thread.empty(); });
  Table t{{"Item", "Median", "Of parent"}, {}};
  if (threads) t.columns.insert(t.columns.end(), {"Thread", "Thread time"});
  t.columns.push_back("Source");
  std::map<std::vector<std::string>, double> by_path;
  for (const auto& n : a.nodes) by_path[n.path] = n.median_s;
  for (const auto* n : rows) {
    const std::vector<std::string> parent(n->path.begin(), n->path.end() - 1);
    const auto p = by_path.find(parent);
    const std::string share = p != by_path.end() && p->second > 0 ? fmt::format("{:.0f}%", 100 * n->median_s / p->second)
                                                                 : "—";
    std::string indent;
    for (std::size_t d = 1; d < n->path.size(); ++d) indent += "· ";
    std::vector<std::string> row{indent + md_cell(n->path.back()), format_seconds(n->median_s), share};
    if (threads)
      row.insert(row.end(), {n->thread.empty() ? "—" : md_cell(n->thread),
                             n->thread_median_s ? format_seconds(*n->thread_median_s) : "—"});
    row.push_back(n->source.empty() ? "—" : md_cell(n->source));
    t.add(row);
  }
  return md + to_markdown(t) + outside_md(a);
}
}  // namespace

std::string anatomy_summary_line(const AnatomySummary& a) {
  std::string md = fmt::format("{} anatomy process{}", a.runs, a.runs == 1 ? "" : "es");
  if (a.ratio)
    md += fmt::format("; first-call phases {} here vs {} in the measured cold runs (×{:.2f}, {} ×{:g})",
                      format_seconds(a.anatomy_phases_s), format_seconds(a.measured_phases_s), *a.ratio,
                      a.agrees.value_or(false) ? "within" : "**outside**", kAnatomyAgreement);
  md += a.measured_runs_instrumented ? (*a.measured_runs_instrumented ? "; **a measured run carried the profiler**"
                                                                      : "; measured runs: no profiler")
                                     : "; measured runs: profiler unknown (a run did not say)";
  return md;
}

std::string anatomy_section_md(const std::vector<CaseResult>& cases) {
  std::string body;
  for (const auto& c : cases)
    if (const auto a = anatomy_summary(c); a && !a->nodes.empty()) body += case_anatomy_md(c, *a);
  if (body.empty()) return "";
  return fmt::format(
      "\n## Inside the compile\n\nThe first call's phases broken down by the framework's own instrumentation "
      "(`--anatomy`: processes of their own, never the measured runs; docs/anatomy.md). Medians per item over the "
      "anatomy processes; a child never holds more than its parent, `unattributed` is what its children leave of "
      "it, `other` the items too small to list. Another thread's item (a thread pool's stage, grouped over every "
      "compile) shows its thread group and, beside its wall time (what its parent waited for it), its thread time "
      "summed over the group's threads, which may exceed its parent's. Up to {} rows per case; the case file holds "
      "the whole tree.\n",
      kAnatomyRowsShown) + body;
}

}  // namespace jitbench
