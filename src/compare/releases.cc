#include "compare/releases.h"

#include <algorithm>

#include "plan/plan.h"
#include "stats/stats.h"

namespace jitbench::compare {

std::vector<std::string> release_metrics(const std::vector<const CaseResult*>& cases) {
  std::vector<std::string> phases, counts;
  for (const auto* c : cases)
    for (const auto& [metric, xs] : metric_samples(*c)) {
      const bool phase = metric.rfind("phase_", 0) == 0;
      if (!phase && metric_info(metric).kind != MetricKind::Instructions) continue;
      auto& list = phase ? phases : counts;
      if (std::find(list.begin(), list.end(), metric) == list.end()) list.push_back(metric);
    }
  std::vector<std::string> out{"cold_import_s"};
  out.insert(out.end(), phases.begin(), phases.end());
  out.insert(out.end(), {"cold_first_call_s", "cold_ttfr_s", "warm_call_s"});
  // run --count: each counted phase's instructions after the times, in the count's own order.
  const std::vector<std::string> order = {"import", "setup", "first_call", "ttfr", "second_call", "warm_call"};
  const auto rank = [&](const std::string& m) {
    const auto phase = instructions_phase(m);
    const auto it = std::find(order.begin(), order.end(), phase.substr(0, phase.find('.')));
    return static_cast<std::size_t>(it - order.begin()) * 2 + (phase.find('.') != std::string::npos);
  };
  std::stable_sort(counts.begin(), counts.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  out.insert(out.end(), counts.begin(), counts.end());
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
