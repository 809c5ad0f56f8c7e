#include "compare/releases.h"

#include <algorithm>

#include "plan/plan.h"
#include "stats/stats.h"

namespace jitbench::compare {

std::vector<std::string> release_metrics(const std::vector<const CaseResult*>& cases) {
  std::vector<std::string> phases;
  for (const auto* c : cases)
    for (const auto& [metric, xs] : metric_samples(*c))
      if (metric.rfind("phase_", 0) == 0 && std::find(phases.begin(), phases.end(), metric) == phases.end())
        phases.push_back(metric);
  std::vector<std::string> out{"cold_import_s"};
  out.insert(out.end(), phases.begin(), phases.end());
  out.insert(out.end(), {"cold_first_call_s", "cold_ttfr_s", "warm_call_s"});
  return out;
}

std::vector<ReleaseRow> release_rows(const std::vector<CaseResult>& cases, double alpha) {
  std::vector<ReleaseRow> rows;
  for (const auto& c : cases) {
    if (c.c.env.empty()) continue;
    const auto key = without_environment(c.c.id);
    auto it = std::find_if(rows.begin(), rows.end(), [&](const ReleaseRow& r) { return r.key == key; });
    if (it == rows.end()) it = rows.insert(rows.end(), {key, {}, {}});
    it->entries.push_back({&c, c.c.env, {}, {}, {}});
  }
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const ReleaseRow& r) { return r.entries.size() < 2; }),
             rows.end());
  for (auto& row : rows) {
    std::vector<const CaseResult*> comparable;
    for (const auto& e : row.entries)
      if (timings_comparable(*e.c)) comparable.push_back(e.c);
    row.metrics = release_metrics(comparable);
    std::optional<Samples> previous;  // the samples of the last comparable environment
    const CaseResult* before = nullptr;  // and its case
    for (auto& e : row.entries) {
      if (!timings_comparable(*e.c)) continue;
      if (before) e.anatomy_step = anatomy_deltas(before->anatomy, e.c->anatomy, 0);  // the line reads them all
      before = e.c;
      Samples samples = metric_samples(*e.c);
      for (const auto& m : row.metrics) {
        const auto s = samples.find(m);
        if (s == samples.end() || s->second.empty()) continue;
        const auto sum = stats::summarize(s->second);
        e.values[m] = {sum->median, sum->median_ci95.low, sum->median_ci95.high};
        if (!previous) continue;
        const auto p = previous->find(m);
        if (p == previous->end() || p->second.empty()) continue;
        if (auto r = metric_row(row.key, m, p->second, s->second, alpha)) e.step.emplace(m, *r);
      }
      previous = std::move(samples);
    }
  }
  return rows;
}

}  // namespace jitbench::compare
