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

// One run's items summed by path: wall time and, for another thread's, thread time.
struct RunItem {
  double s = 0, thread_s = 0;
};

// The thread group a path ran on over the runs: one name, or "several" when they disagree.
void note_thread(AnatomyNode& node, const AnatomyItem& it, bool first) {
  if (first)
    node.thread = it.thread;
  else if (node.thread != it.thread)
    node.thread = "several";
}

AnatomyMedians anatomy_medians(const std::vector<RunRecord>& runs) {
  AnatomyMedians m;
  std::vector<std::map<AnatomyPath, RunItem>> per_run;
  std::set<AnatomyPath> threaded;
  for (const auto& r : runs) {
    if (r.status != Status::Ok || r.worker.anatomy.empty()) continue;
    auto& mine = per_run.emplace_back();
    for (const auto& it : r.worker.anatomy) {
      auto& sums = mine[it.path];
      sums.s += it.s;
      sums.thread_s += it.thread_s.value_or(it.s);
      const bool first = !m.by_path.count(it.path);
      auto& node = m.by_path[it.path];
      node.path = it.path;
      if (node.source.empty()) node.source = it.source;
      note_thread(node, it, first);
      if (it.thread_s) threaded.insert(it.path);
    }
  }
  m.runs = static_cast<int>(per_run.size());
  for (auto& [path, node] : m.by_path) {
    std::vector<double> xs, ts;
    for (const auto& run : per_run) {
      const auto f = run.find(path);
      xs.push_back(f == run.end() ? 0.0 : f->second.s);
      ts.push_back(f == run.end() ? 0.0 : f->second.thread_s);
      node.runs += f == run.end() ? 0 : 1;
    }
    node.median_s = stats::median(xs).value_or(0.0);
    if (threaded.count(path)) node.thread_median_s = stats::median(ts).value_or(0.0);
  }
  return m;
}

// Medians of what the anatomy runs' events cover outside every phase, over the runs that reported it.
std::optional<AnatomyOutsideSummary> outside_summary(const std::vector<RunRecord>& runs) {
  std::vector<double> events, wall, thread, first_call;
  for (const auto& r : runs) {
    if (r.status != Status::Ok || !r.worker.anatomy_outside) continue;
    events.push_back(r.worker.anatomy_outside->events);
    wall.push_back(r.worker.anatomy_outside->wall_s);
    thread.push_back(r.worker.anatomy_outside->thread_s);
    first_call.push_back(r.worker.anatomy_outside->first_call_s);
  }
  if (events.empty()) return std::nullopt;
  return AnatomyOutsideSummary{static_cast<int>(events.size()), *stats::median(events), *stats::median(wall),
                               *stats::median(thread), *stats::median(first_call)};
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
    AnatomyNode node;
    node.path = p;
    node.median_s = s;
    node.runs = runs;
    out.push_back(node);
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

namespace {
// Another thread's items: each one's thread time at least its wall time, and
// the thread times of the children on its own thread group within its own.
std::optional<std::string> thread_time_inconsistency(const std::vector<AnatomyItem>& items,
                                                     const std::function<double(double)>& slack) {
  std::map<AnatomyPath, std::pair<double, double>> sums;  // wall, thread time
  std::map<AnatomyPath, std::string> thread;
  for (const auto& it : items) {
    if (!it.thread_s) continue;
    sums[it.path].first += it.s;
    sums[it.path].second += *it.thread_s;
    thread[it.path] = it.thread;
  }
  std::map<AnatomyPath, double> children;
  for (const auto& [path, st] : sums) {
    if (st.first > st.second + slack(st.second))
      return fmt::format("anatomy item '{}' on {} has a wall time of {:.6g} s, more than its {:.6g} s of thread time",
                         path_text(path), thread[path], st.first, st.second);
    const auto parent = thread.find(parent_of(path));
    if (parent != thread.end() && parent->second == thread[path]) children[parent->first] += st.second;
  }
  for (const auto& [parent, sum] : children)
    if (sum > sums[parent].second + slack(sums[parent].second))
      return fmt::format("the anatomy items under '{}' on its own thread group {} add up to {:.6g} s of thread time, "
                         "more than its own {:.6g} s",
                         path_text(parent), thread[parent], sum, sums[parent].second);
  return std::nullopt;
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
  return thread_time_inconsistency(items, slack);
}

namespace {
using Interval = std::pair<double, double>;

// The time a set of intervals covers, each instant once.
double covered_s(std::vector<Interval> ivs) {
  std::sort(ivs.begin(), ivs.end());
  double total = 0, end = -std::numeric_limits<double>::infinity();
  for (const auto& [a, b] : ivs) {
    if (b <= end) continue;
    total += b - std::max(a, end);
    end = b;
  }
  return total;
}

// Intervals that touch (within the slack) or overlap, as one.
std::vector<Interval> touching_merged(std::vector<Interval> ivs) {
  std::sort(ivs.begin(), ivs.end());
  std::vector<Interval> out;
  for (const auto& iv : ivs)
    if (!out.empty() && iv.first <= out.back().second + kAnatomyIntervalSlackS)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  return out;
}

// Another thread's item: its wall time (what its parent waited for it) within what its intervals cover.
std::optional<std::string> thread_wall_inconsistency(const std::vector<AnatomyItem>& items) {
  std::map<AnatomyPath, std::pair<double, std::vector<Interval>>> by_path;
  for (const auto& it : items) {
    if (it.thread.empty() || it.intervals.empty()) continue;
    auto& [s, ivs] = by_path[it.path];
    s += it.s;
    ivs.insert(ivs.end(), it.intervals.begin(), it.intervals.end());
  }
  for (const auto& [path, sv] : by_path)
    if (const double cover = covered_s(sv.second); sv.first > cover + kAnatomyIntervalSlackS)
      return fmt::format("anatomy item '{}' on another thread has a wall time of {:.9g} s, more than its intervals "
                         "cover ({:.9g} s)",
                         path_text(path), sv.first, cover);
  return std::nullopt;
}
}  // namespace

std::optional<std::string> anatomy_interval_inconsistency(const std::vector<AnatomyItem>& items) {
  std::map<AnatomyPath, std::vector<Interval>> by_path;
  std::set<AnatomyPath> threaded;
  for (const auto& it : items) {
    by_path[it.path].insert(by_path[it.path].end(), it.intervals.begin(), it.intervals.end());
    if (!it.thread.empty()) threaded.insert(it.path);
  }
  constexpr double tol = kAnatomyIntervalSlackS;
  std::map<AnatomyPath, std::vector<std::pair<Interval, const AnatomyPath*>>> by_parent;
  for (const auto& [path, ivs] : by_path) {
    if (path.size() < 2) continue;  // the phases are jitbench's own spans, checked by their sums
    const auto parent = by_path.find(parent_of(path));
    // Another thread's item is the union of its events' pieces: one may run on across two back-to-back
    // intervals of its parent, so it lies within their union.
    const auto holds = parent == by_path.end() ? std::vector<Interval>{}
                       : threaded.count(path)  ? touching_merged(parent->second)
                                               : parent->second;
    for (const auto& iv : ivs) {
      // Another thread's item runs beside its siblings: only the dispatching thread's may not overlap.
      if (!threaded.count(path)) by_parent[parent_of(path)].push_back({iv, &path});
      if (holds.empty()) continue;
      const bool inside = std::any_of(holds.begin(), holds.end(), [&](const Interval& p) {
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
  return thread_wall_inconsistency(items);
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
  out.outside_phases = outside_summary(c.anatomy);
  return out;
}

}  // namespace jitbench
