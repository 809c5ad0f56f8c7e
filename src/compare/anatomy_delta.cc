#include "compare/anatomy_delta.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compare/significance.h"
#include "stats/sequential.h"
#include "stats/stats.h"

namespace jitbench::compare {
namespace {
using ItemPath = std::vector<std::string>;

// One map per ok anatomy process with items: each item's (wall) time (an item
// reported twice in a process counts once, summed, as the case summary does).
std::vector<std::map<ItemPath, double>> per_process_items(const std::vector<RunRecord>& runs,
                                                          std::map<ItemPath, std::string>& threads) {
  std::vector<std::map<ItemPath, double>> out;
  for (const auto& r : runs) {
    if (r.status != Status::Ok || r.worker.anatomy.empty()) continue;
    auto& mine = out.emplace_back();
    for (const auto& it : r.worker.anatomy) {
      mine[it.path] += it.s;
      if (!it.thread.empty()) threads[it.path] = it.thread;
    }
  }
  return out;
}

// The item's value in every process of a side (0 where a process lacks it);
// whether any process of the side reported it.
std::vector<double> item_values(const std::vector<std::map<ItemPath, double>>& side, const ItemPath& path,
                                bool& reported) {
  std::vector<double> xs;
  reported = false;
  for (const auto& run : side) {
    const auto f = run.find(path);
    reported = reported || f != run.end();
    xs.push_back(f == run.end() ? 0.0 : f->second);
  }
  return xs;
}

SubPhaseDelta item_delta(const ItemPath& path, const std::vector<std::map<ItemPath, double>>& a,
                         const std::vector<std::map<ItemPath, double>>& b) {
  SubPhaseDelta d;
  d.path = path;
  bool in_a = false, in_b = false;
  const auto xa = item_values(a, path, in_a), xb = item_values(b, path, in_b);
  d.n_base = xa.size();
  d.n_new = xb.size();
  d.base_values = xa;
  d.new_values = xb;
  d.base_lo = *stats::min(xa), d.base_hi = *stats::max(xa);
  d.new_lo = *stats::min(xb), d.new_hi = *stats::max(xb);
  if (in_a) d.base_s = *stats::median(xa);
  if (in_b) d.new_s = *stats::median(xb);
  d.change_s = d.new_s.value_or(0.0) - d.base_s.value_or(0.0);
  if (!in_a || !in_b) return d;
  if (const auto r = ratio_of_medians(xa, xb)) {
    d.ratio = r->ratio;
    if (anatomy_ratio_ci_possible(xa.size(), xb.size())) d.lo = r->lo, d.hi = r->hi;
  }
  return d;
}
}  // namespace

std::vector<SubPhaseDelta> anatomy_deltas(const std::vector<RunRecord>& base, const std::vector<RunRecord>& next,
                                          std::size_t top) {
  std::map<ItemPath, std::string> threads;  // NEW's thread group where it has one (read last), else BASE's
  const auto a = per_process_items(base, threads), b = per_process_items(next, threads);
  if (a.empty() || b.empty()) return {};
  std::set<ItemPath> paths;
  for (const auto* side : {&a, &b})
    for (const auto& run : *side)
      for (const auto& [path, s] : run) paths.insert(path);
  std::vector<SubPhaseDelta> out;
  for (const auto& path : paths) {
    out.push_back(item_delta(path, a, b));
    if (const auto t = threads.find(path); t != threads.end()) out.back().thread = t->second;
  }
  std::stable_sort(out.begin(), out.end(), [](const SubPhaseDelta& x, const SubPhaseDelta& y) {
    // To the nanosecond (the worker's resolution): a phase and the one sub-phase that moved it tie.
    const auto cx = std::llround(std::abs(x.change_s) * 1e9), cy = std::llround(std::abs(y.change_s) * 1e9);
    if (cx != cy) return cx > cy;
    return x.path.size() < y.path.size();  // a phase before the sub-phase that moved it as much
  });
  return top == 0 ? out : top_deltas(std::move(out), top);
}

std::vector<SubPhaseDelta> top_deltas(std::vector<SubPhaseDelta> all, std::size_t top) {
  if (top == 0 || all.size() <= top) return all;
  std::vector<SubPhaseDelta> kept;  // the `top` largest, and every phase: a line names the phase that moved most
  for (auto& d : all)
    if (kept.size() < top || d.path.size() == 1) kept.push_back(std::move(d));
  return kept;
}

bool anatomy_ratio_ci_possible(std::size_t n_base, std::size_t n_new) {
  return stats::median_interval_possible(std::min(n_base, n_new), stats::kReportConfidence);
}

}  // namespace jitbench::compare
