#include "export/docs/glance_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "export/docs/case_names.h"
#include "export/docs/figure_data.h"
#include "report/format.h"
#include "stats/stats.h"

namespace jitbench {
namespace {
// 12,345 for 12345.4: a count of calls, grouped by thousands.
std::string glance_grouped(double v) {
  auto digits = fmt::format("{:.0f}", v);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

// A piece of work across environments is one row: its environments are what it compares.
std::string glance_work(const Case& c) {
  auto work = work_of(c);
  if (const auto at = work.find("__env-" + c.env); !c.env.empty() && at != std::string::npos)
    work.erase(at, 6 + c.env.size());
  return work;
}

// A backend in its work's row; for a measured function, what it runs ("`sgd_step` with jax.jit").
std::string glance_label(const Case& c) {
  const bool measured = c.workload_info && c.workload_info->measured;
  Case bare = c;
  bare.env.clear();
  const auto name = measured ? case_row_md(bare) : c.backend;
  return c.env.empty() ? name : name + " in " + c.env;
}
}  // namespace

// One row per piece of work (workload, size, dtype, cache mode): which backend
// gave the first result soonest, which is fastest once warm, and after how many
// calls each JIT pays for itself against its eager baseline.
Table glance_table(const std::vector<CaseResult>& cases, const Analysis& analysis) {
  struct Entry { std::string backend; std::optional<double> ttfr, warm; };
  std::vector<std::pair<std::string, std::vector<Entry>>> groups;
  std::map<std::string, std::string> titles;  // a work's key -> what the row shows
  for (const auto& c : cases) {
    if (!timings_comparable(c)) continue;
    const auto work = glance_work(c.c);
    titles.emplace(work, c.c.workload_info && c.c.workload_info->measured ? work_title_md(c.c) : md_code(work));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == work; });
    if (it == groups.end()) it = groups.insert(groups.end(), {work, {}});
    it->second.push_back({glance_label(c.c), stats::median(cold_values(c, "ttfr_s")), stats::median(warm_values(c))});
  }
  Table t{{"Work", "Backends", "First result soonest", "Fastest once warm", "N* (calls until the JIT has paid for itself)"}, {}};
  for (const auto& [work, xs] : groups) {
    const Entry* first = nullptr;
    const Entry* fast = nullptr;
    for (const auto& e : xs) {
      if (e.ttfr && (!first || *e.ttfr < *first->ttfr)) first = &e;
      if (e.warm && (!fast || *e.warm < *fast->warm)) fast = &e;
    }
    std::string be;
    for (const auto& r : analysis.break_even) {
      if (glance_work(r.jit->c) != work) continue;
      const auto b = glance_label(r.jit->c);
      const auto text = b + ": " + (r.be.calls && *r.be.calls >= 10 ? glance_grouped(*r.be.calls) : n_star_text(r.be));
      be += (be.empty() ? "" : ", ") + text;
    }
    t.add({titles.at(work), std::to_string(xs.size()),
           first ? fmt::format("{} ({})", first->backend, format_seconds(*first->ttfr)) : "—",
           fast ? fmt::format("{} ({})", fast->backend, format_seconds(*fast->warm)) : "—", be.empty() ? "—" : be});
  }
  return t;
}

std::string failures_md(const std::vector<CaseResult>& cases) {
  struct Group { std::string head, detail; std::vector<std::string> ids; };
  std::vector<Group> groups;
  for (const auto& c : cases) {
    if (c.status == Status::Ok) continue;
    const auto head = fmt::format("**{}** `{}`", to_string(c.status), to_string(c.reason));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.head == head && g.detail == c.detail; });
    if (it == groups.end()) it = groups.insert(groups.end(), {head, c.detail, {}});
    it->ids.push_back(md_code(c.c.id));
  }
  std::string md;
  for (const auto& g : groups) {
    std::string ids;
    for (const auto& id : g.ids) ids += (ids.empty() ? "" : ", ") + id;
    md += fmt::format("- {} ({} {}: {}){}\n", g.head, g.ids.size(), g.ids.size() == 1 ? "case" : "cases", ids,
                      g.detail.empty() ? "" : ": " + md_cell(g.detail));
  }
  return md;
}

}  // namespace jitbench
