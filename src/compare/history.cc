#include "compare/history.h"

#include <algorithm>
#include <map>
#include <set>

#include "compare/compare.h"
#include "stats/stats.h"

namespace jitbench::compare {
namespace {

// The metric's order on the page: start-up first, then the compile, then warm and memory.
int metric_rank(const std::string& m) {
  if (m == "cold_ttfr_s") return 0;
  if (m == "cold_import_s") return 1;
  if (m == "cold_first_call_s") return 2;
  if (m.rfind("phase_", 0) == 0) return 3;
  if (m == "warm_call_s") return 4;
  if (metric_info(m).kind == MetricKind::Instructions) return 6;  // counts last, charted apart from the times
  return 5;
}

void add_metrics(const std::vector<CaseResult>& cases, std::vector<std::string>& metrics) {
  for (const auto& m : history_metrics(cases))
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
}

HistorySeries& series_for(std::vector<HistorySeries>& all, const std::string& id, const std::string& metric,
                          const SnapshotRun& s) {
  for (auto& x : all)
    if (x.case_id == id && x.metric == metric && x.machine == s.machine &&
        x.environment_digest == s.environment_digest)
      return x;
  all.push_back({id, metric, s.machine, s.environment_digest, {}});
  return all.back();
}

// The steps the gate flags between two consecutive snapshots of one machine.
std::vector<FlaggedStep> flagged_steps(const SnapshotRun& a, const SnapshotRun& b, double pct, double alpha) {
  const Comparison c = compare_runs(*a.cases, *b.cases, alpha);
  std::vector<FlaggedStep> out;
  const bool env_changed = a.environment_digest != b.environment_digest;
  for (const auto* r : regressions(c, pct, alpha))
    out.push_back({b.machine, a.id, b.id, r->case_id, r->metric, r->base_interference, r->new_interference,
                   r->ratio, r->lo, r->hi, r->p, env_changed, ""});
  for (const auto& w : c.worsened) {
    FlaggedStep s{b.machine, a.id, b.id, w.substr(0, w.find(": ")), "status", {}, {}, 0, 0, 0, 1, env_changed, ""};
    s.status_change = w.substr(w.find(": ") + 2);
    out.push_back(std::move(s));
  }
  return out;
}
}  // namespace

std::vector<std::string> history_metrics(const std::vector<CaseResult>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases)
    for (const auto& [m, xs] : metric_samples(c))
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  std::stable_sort(out.begin(), out.end(),
                   [](const std::string& a, const std::string& b) { return metric_rank(a) < metric_rank(b); });
  return out;
}

History build_history(const std::vector<SnapshotRun>& snapshots, double pct, double alpha) {
  History h;
  std::map<std::string, std::size_t> last_of_machine;  // machine -> its latest snapshot so far
  for (std::size_t i = 0; i < snapshots.size(); ++i) {
    const auto& s = snapshots[i];
    add_metrics(*s.cases, h.metrics);
    std::set<std::pair<std::string, std::string>> flagged;  // (case, metric) flagged into this snapshot
    if (auto it = last_of_machine.find(s.machine); it != last_of_machine.end()) {
      auto steps = flagged_steps(snapshots[it->second], s, pct, alpha);
      for (const auto& f : steps) flagged.insert({f.case_id, f.metric});
      h.flagged.insert(h.flagged.end(), steps.begin(), steps.end());
    }
    last_of_machine[s.machine] = i;
    for (const auto& c : *s.cases) {
      if (std::find(h.case_ids.begin(), h.case_ids.end(), c.c.id) == h.case_ids.end()) h.case_ids.push_back(c.c.id);
      for (const auto& [m, xs] : metric_samples(c)) {
        const auto med = stats::median(xs);
        // An instruction count's band is its processes' range (the spread compare judges it by).
        const auto ci = metric_info(m).rule == MetricRule::Spread && !xs.empty()
                            ? std::optional<stats::Interval>(stats::Interval{*stats::min(xs), *stats::max(xs)})
                            : stats::bootstrap_median_ci(xs);
        if (!med || !ci) continue;
        series_for(h.series, c.c.id, m, s).points.push_back(
            {i, *med, ci->low, ci->high, xs.size(), flagged.count({c.c.id, m}) > 0, metric_interference(c, m)});
      }
    }
  }
  std::stable_sort(h.metrics.begin(), h.metrics.end(),
                   [](const std::string& a, const std::string& b) { return metric_rank(a) < metric_rank(b); });
  for (const auto& f : h.flagged)
    if (snapshots[last_of_machine[f.machine]].id == f.to_id) h.since_last.push_back(f);
  return h;
}

}  // namespace jitbench::compare
