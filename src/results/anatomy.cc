#include "results/anatomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "stats/stats.h"

namespace jitbench {
namespace {
using AnatomyPath = std::vector<std::string>;

std::string path_text(const AnatomyPath& p) {
  std::string out;
  for (const auto& x : p) out += (out.empty() ? "" : " / ") + x;
  return out;
}

AnatomyPath parent_of(const AnatomyPath& p) { return AnatomyPath(p.begin(), p.end() - 1); }

// Each item's median over the runs (0 in a run without it), and its source.
struct AnatomyMedians {
  std::map<AnatomyPath, AnatomyNode> by_path;
  int runs = 0;
};

AnatomyMedians anatomy_medians(const std::vector<RunRecord>& runs) {
  std::map<AnatomyPath, std::vector<double>> values;
  AnatomyMedians m;
  std::vector<std::map<AnatomyPath, double>> per_run;
  for (const auto& r : runs) {
    if (r.status != Status::Ok || r.worker.anatomy.empty()) continue;
    auto& mine = per_run.emplace_back();
    for (const auto& it : r.worker.anatomy) {
      mine[it.path] += it.s;
      auto& node = m.by_path[it.path];
      node.path = it.path;
      if (node.source.empty()) node.source = it.source;
    }
  }
  m.runs = static_cast<int>(per_run.size());
  for (auto& [path, node] : m.by_path) {
    std::vector<double> xs;
    for (const auto& run : per_run) {
      const auto f = run.find(path);
      xs.push_back(f == run.end() ? 0.0 : f->second);
      node.runs += f == run.end() ? 0 : 1;
    }
    node.median_s = stats::median(xs).value_or(0.0);
  }
  return m;
}

// The keep rule: every phase; the kAnatomyLongest longest sub-phases and any
// other of at least kAnatomyShare of its parent, at most kAnatomyMost, each
// with its ancestors.
std::set<AnatomyPath> kept_paths(const std::map<AnatomyPath, AnatomyNode>& nodes) {
  std::vector<const AnatomyNode*> subs;
  std::set<AnatomyPath> kept;
  for (const auto& [path, node] : nodes) {
    if (path.size() == 1)
      kept.insert(path);
    else
      subs.push_back(&node);
  }
  std::stable_sort(subs.begin(), subs.end(), [](auto* a, auto* b) { return a->median_s > b->median_s; });
  const auto share = [&](const AnatomyNode* n) {
    const auto p = nodes.find(parent_of(n->path));
    return p == nodes.end() || p->second.median_s <= 0 ? 0.0 : n->median_s / p->second.median_s;
  };
  int taken = 0;
  for (std::size_t i = 0; i < subs.size() && taken < kAnatomyMost; ++i) {
    if (static_cast<int>(i) >= kAnatomyLongest && share(subs[i]) < kAnatomyShare) continue;
    for (AnatomyPath p = subs[i]->path; p.size() > 1; p.pop_back())
      if (kept.insert(p).second) ++taken;
  }
  return kept;
}

void emit_subtree(const AnatomyPath& at, const std::map<AnatomyPath, AnatomyNode>& nodes,
                  const std::set<AnatomyPath>& kept, int runs, std::vector<AnatomyNode>& out) {
  std::vector<const AnatomyNode*> children;
  double all = 0, shown = 0;
  for (auto it = nodes.upper_bound(at); it != nodes.end(); ++it) {
    const auto& p = it->first;
    if (p.size() <= at.size() || !std::equal(at.begin(), at.end(), p.begin())) break;
    if (p.size() != at.size() + 1) continue;
    all += it->second.median_s;
    if (kept.count(p)) children.push_back(&it->second);
  }
  std::stable_sort(children.begin(), children.end(), [](auto* a, auto* b) { return a->median_s > b->median_s; });
  for (const auto* c : children) {
    shown += c->median_s;
    out.push_back(*c);
    emit_subtree(c->path, nodes, kept, runs, out);
  }
  auto add = [&](const char* name, double s) {
    AnatomyPath p = at;
    p.push_back(name);
    out.push_back({p, "", s, runs});
  };
  if (all - shown > 0) add(kAnatomyOther, all - shown);
  const double parent = nodes.at(at).median_s;
  if (!children.empty() || all > 0) add(kAnatomyUnattributed, std::max(parent - all, 0.0));
}

std::optional<double> median_phases(const std::vector<RunRecord>& runs) {
  std::vector<double> xs;
  for (const auto& r : runs)
    if (r.status == Status::Ok && r.worker.has_first_call) xs.push_back(r.worker.all_phases_sum);
  return stats::median(xs);
}
}  // namespace

std::optional<std::string> anatomy_inconsistency(const std::vector<AnatomyItem>& items, double first_call_s,
                                                 const std::function<double(double)>& slack) {
  std::map<AnatomyPath, double> s, children;
  for (const auto& it : items) s[it.path] += it.s;
  double phases = 0;
  for (const auto& [path, v] : s) {
    if (path.size() == 1) {
      phases += v;
      continue;
    }
    const auto parent = parent_of(path);
    if (!s.count(parent))
      return fmt::format("anatomy item '{}' has no parent item '{}'", path_text(path), path_text(parent));
    children[parent] += v;
  }
  if (phases > first_call_s + slack(first_call_s))
    return fmt::format("the anatomy's phases add up to {:.6g} s, more than the {:.6g} s first call", phases,
                       first_call_s);
  for (const auto& [parent, sum] : children)
    if (sum > s[parent] + slack(s[parent]))
      return fmt::format("the anatomy items under '{}' add up to {:.6g} s, more than its own {:.6g} s",
                         path_text(parent), sum, s[parent]);
  return std::nullopt;
}

std::optional<std::string> anatomy_interval_inconsistency(const std::vector<AnatomyItem>& items) {
  using Interval = std::pair<double, double>;
  std::map<AnatomyPath, std::vector<Interval>> by_path;
  for (const auto& it : items) by_path[it.path].insert(by_path[it.path].end(), it.intervals.begin(), it.intervals.end());
  constexpr double tol = kAnatomyIntervalSlackS;
  std::map<AnatomyPath, std::vector<std::pair<Interval, const AnatomyPath*>>> by_parent;
  for (const auto& [path, ivs] : by_path) {
    if (path.size() < 2) continue;  // the phases are jitbench's own spans, checked by their sums
    const auto parent = by_path.find(parent_of(path));
    for (const auto& iv : ivs) {
      by_parent[parent_of(path)].push_back({iv, &path});
      if (parent == by_path.end() || parent->second.empty()) continue;
      const bool inside = std::any_of(parent->second.begin(), parent->second.end(), [&](const Interval& p) {
        return p.first - tol <= iv.first && iv.second <= p.second + tol;
      });
      if (!inside)
        return fmt::format("anatomy item '{}' ran from {:.9g} s to {:.9g} s, inside no interval of its parent '{}'",
                           path_text(path), iv.first, iv.second, path_text(parent->first));
    }
  }
  for (auto& [parent, xs] : by_parent) {
    std::sort(xs.begin(), xs.end());
    for (std::size_t i = 1; i < xs.size(); ++i)
      if (xs[i].first.first < xs[i - 1].first.second - tol)
        return fmt::format("anatomy items '{}' and '{}' overlap in time ({:.9g} s to {:.9g} s) though both lie "
                           "directly under '{}'",
                           path_text(*xs[i - 1].second), path_text(*xs[i].second), xs[i].first.first,
                           std::min(xs[i - 1].first.second, xs[i].first.second), path_text(parent));
  }
  return std::nullopt;
}

std::optional<std::string> anatomy_rule_broken(const std::vector<AnatomyItem>& items,
                                               std::optional<double> first_call_s) {
  for (const auto& it : items) {
    if (!std::isfinite(it.s) || it.s < 0)
      return fmt::format("anatomy item '{}' lasts {:g} s, not a duration", path_text(it.path), it.s);
    for (const auto& [from, to] : it.intervals)
      if (!std::isfinite(from) || !std::isfinite(to) || to < from)
        return fmt::format("anatomy item '{}' has an interval from {:g} s to {:g} s", path_text(it.path), from, to);
  }
  if (auto why = anatomy_inconsistency(items, first_call_s.value_or(std::numeric_limits<double>::infinity()),
                                       timing_slack))
    return why;
  return anatomy_interval_inconsistency(items);
}

std::optional<bool> measured_runs_instrumented(const CaseResult& c) {
  bool any = false, unknown = false;
  for (const auto* runs : {&c.cold, &c.warm})
    for (const auto& r : *runs) {
      // A run that sent no instrumentation record said nothing: not "no profiler"
      // (profiler_session alone may be null: a framework without a profiler).
      if (!r.worker.anatomy_instrumented) unknown = true;
      for (const auto& flag : {r.worker.anatomy_instrumented, r.worker.profiler_session})
        if (flag && *flag) any = true;
    }
  if (any) return true;
  if (unknown) return std::nullopt;
  return false;
}

std::optional<AnatomySummary> anatomy_summary(const CaseResult& c) {
  if (c.anatomy.empty()) return std::nullopt;
  AnatomySummary out;
  const auto m = anatomy_medians(c.anatomy);
  out.runs = m.runs;
  out.items_reported = static_cast<int>(m.by_path.size());
  const auto kept = kept_paths(m.by_path);
  std::vector<const AnatomyNode*> phases;
  for (const auto& [path, node] : m.by_path)
    if (path.size() == 1) phases.push_back(&node);
  std::stable_sort(phases.begin(), phases.end(), [](auto* a, auto* b) { return a->median_s > b->median_s; });
  for (const auto* phase : phases) {
    out.nodes.push_back(*phase);
    emit_subtree(phase->path, m.by_path, kept, m.runs, out.nodes);
  }
  out.anatomy_phases_s = median_phases(c.anatomy);
  out.measured_phases_s = median_phases(c.cold);
  if (out.anatomy_phases_s && out.measured_phases_s && *out.measured_phases_s > 0) {
    out.ratio = *out.anatomy_phases_s / *out.measured_phases_s;
    out.agrees = *out.ratio <= kAnatomyAgreement && *out.ratio >= 1.0 / kAnatomyAgreement;
  }
  out.measured_runs_instrumented = measured_runs_instrumented(c);
  return out;
}

}  // namespace jitbench
