#include "compare/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "compare/significance.h"
#include "plan/plan.h"
#include "results/counts.h"
#include "results/views.h"
#include "stats/sequential.h"
#include "stats/stats.h"

namespace jitbench::compare {

std::vector<std::vector<double>> warm_processes(const CaseResult& c) {
  std::vector<std::vector<double>> out;
  for (const auto& run : c.warm)
    if (run.status == Status::Ok && !run.calls_s.empty()) out.push_back(run.calls_s);
  return out;
}

// The workload's peak RSS of each ok cold run (RunRecord::workload_peak_rss_kib:
// the worker's high-water mark after the measured calls, before the harness
// verifies), all or none: none where a run did not report it, so that no side
// of a comparison is a censored sample, nor the harness's size.
std::vector<double> workload_peaks(const CaseResult& c) {
  std::vector<double> out;
  for (const auto& run : c.cold) {
    if (run.status != Status::Ok) continue;
    const auto peak = run.workload_peak_rss_kib();
    if (!peak) return {};
    out.push_back(*peak);
  }
  return out;
}

Samples metric_samples(const CaseResult& c) {
  Samples out;
  if (auto peaks = workload_peaks(c); !peaks.empty()) out["peak_rss_kib"] = std::move(peaks);
  for (const auto& run : c.cold) {
    if (run.status != Status::Ok) continue;
    if (auto v = run.ttfr_s()) out["cold_ttfr_s"].push_back(*v);
    if (run.import_s) out["cold_import_s"].push_back(*run.import_s);
    if (run.first_call_s) out["cold_first_call_s"].push_back(*run.first_call_s);
    if (auto b = phase_breakdown(run))
      for (const auto& [name, v] : b->phases) out["phase_" + name + "_s"].push_back(v);
  }
  for (const auto& calls : warm_processes(c))
    if (auto m = stats::median(calls)) out["warm_call_s"].push_back(*m);
  if (!count_source(c).empty())  // one source for every process, or no count compares
    for (auto& [phase, xs] : count_samples(c)) out[instructions_metric(phase)] = std::move(xs);
  return out;
}

namespace {
// The interference share of the runs behind a metric's samples: the ok runs
// (warm: those that reported calls); a run that measured nothing says nothing
// about the machine the numbers were measured on.
InterferenceShare measured_share(const std::vector<RunRecord>& runs, bool warm) {
  std::vector<RunRecord> measured;
  for (const auto& r : runs)
    if (r.status == Status::Ok && (!warm || !r.calls_s.empty())) measured.push_back(r);
  return interference_share(measured);
}

// The id two cases pair by: the id itself, or (two runs of one suite in
// different environments) the id without its environment part.
using Key = std::string (*)(const std::string&);
std::string same(const std::string& id) { return id; }

Key pairing(const std::vector<CaseResult>& base, const std::vector<CaseResult>& next) {
  std::set<std::string> ids_a, ids_b, keys_a, keys_b;
  for (const auto& c : base) ids_a.insert(c.c.id), keys_a.insert(without_environment(c.c.id));
  for (const auto& c : next) ids_b.insert(c.c.id), keys_b.insert(without_environment(c.c.id));
  const bool shared_id = std::any_of(ids_a.begin(), ids_a.end(), [&](const std::string& id) { return ids_b.count(id); });
  const bool one_to_one = keys_a.size() == base.size() && keys_b.size() == next.size();
  return !shared_id && one_to_one ? &without_environment : &same;
}

const CaseResult* find(const std::vector<CaseResult>& cases, const std::string& key, Key by) {
  for (const auto& c : cases)
    if (by(c.c.id) == key) return &c;
  return nullptr;
}

std::vector<std::pair<const CaseResult*, const CaseResult*>> pairs(const std::vector<CaseResult>& base,
                                                                   const std::vector<CaseResult>& next, Key by) {
  std::vector<std::pair<const CaseResult*, const CaseResult*>> out;
  for (const auto& a : base)
    if (const auto* b = find(next, by(a.c.id), by)) out.emplace_back(&a, b);
  return out;
}

void case_membership(const std::vector<CaseResult>& base, const std::vector<CaseResult>& next, Key by,
                     Comparison& out) {
  for (const auto& c : next)
    if (!find(base, by(c.c.id), by)) out.added.push_back(c.c.id);
  for (const auto& a : base) {
    const auto* b = find(next, by(a.c.id), by);
    if (!b) {
      out.removed.push_back(a.c.id);
      continue;
    }
    if (a.status == b->status) continue;
    out.changed.push_back(fmt::format("{}: {} -> {}{}", a.c.id, to_string(a.status), to_string(b->status),
                                      b->reason.empty() ? "" : " (" + to_string(b->reason) + ")"));
    // A cross-check warning doubts the phase split, not the times: no worse for a gate.
    if (severity(b->status) > severity(a.status) && !(timings_comparable(a) && timings_comparable(*b)))
      out.worsened.push_back(out.changed.back());
  }
}
}  // namespace

namespace {
// One side's interval under the spread rule: the median's 95% interval from
// kSpreadMedianRuns processes on, else the range.
stats::Interval spread_side(const std::vector<double>& xs) {
  if (xs.size() >= kSpreadMedianRuns)
    if (auto ci = stats::order_statistic_median_ci(xs, stats::kReportConfidence)) return *ci;
  return {*stats::min(xs), *stats::max(xs)};
}

// Lord's range test (1947): u = |mean A - mean B| / (range A + range B)
// against its two-sided 5% critical value for normal samples of n a side,
// simulated (400,000 draws per n; src/compare/metrics_test.cc checks the rate):
// ranges that merely do not overlap are not a change (two processes a side
// from one distribution fail to overlap one time in three). Unequal sides
// take the smaller side's value (the larger n's is smaller: conservative);
// from 10 on, 10's.
bool range_test_differs(const std::vector<double>& xa, const std::vector<double>& xb) {
  static constexpr double kCritical[] = {1.713, 0.637, 0.407, 0.306, 0.250, 0.212, 0.187, 0.168, 0.152};  // n = 2..10
  const std::size_t n = std::min<std::size_t>(std::min(xa.size(), xb.size()), 10);
  const double gap = std::abs(*stats::mean(xb) - *stats::mean(xa));
  const double ranges = (*stats::max(xa) - *stats::min(xa)) + (*stats::max(xb) - *stats::min(xb));
  if (ranges == 0) return gap > 0;  // counted exactly alike a side: any difference is one
  return gap / ranges > kCritical[n - 2];
}

// An instruction count, BASE against NEW: the ratio of medians with the
// processes' spread as its interval (compare/metrics.h); no test.
std::optional<MetricRow> spread_row(const std::string& id, const std::string& metric, const std::vector<double>& xa,
                                    const std::vector<double>& xb) {
  const auto a = spread_side(xa), b = spread_side(xb);
  if (!(a.low > 0)) return std::nullopt;  // a count of nothing has no ratio
  MetricRow r;
  r.case_id = id;
  r.metric = metric;
  r.rule = MetricRule::Spread;
  r.n_base = xa.size();
  r.n_new = xb.size();
  r.base_median = *stats::median(xa);
  r.new_median = *stats::median(xb);
  r.ratio = r.new_median / r.base_median;
  r.lo = b.low / a.high;
  r.hi = b.high / a.low;
  r.p = std::nan("");
  r.hl = r.new_median - r.base_median;
  r.testable = xa.size() >= kSpreadMinRuns && xb.size() >= kSpreadMinRuns;
  r.significant = r.testable && (r.lo > 1 || r.hi < 1) && range_test_differs(xa, xb);
  const auto info = metric_info(metric);
  r.verdict = !r.testable ? "too few runs" : !r.significant ? "within spread" : r.ratio > 1 ? info.more : info.less;
  return r;
}
}  // namespace

std::optional<MetricRow> metric_row(const std::string& id, const std::string& metric, const std::vector<double>& xa,
                                    const std::vector<double>& xb, double alpha) {
  if (metric_info(metric).rule == MetricRule::Spread) return spread_row(id, metric, xa, xb);
  const auto ratio = ratio_of_medians(xa, xb);
  const auto mw = mann_whitney(xa, xb);
  if (!ratio || !mw) return std::nullopt;
  MetricRow r;
  r.case_id = id;
  r.metric = metric;
  r.n_base = xa.size();
  r.n_new = xb.size();
  r.base_median = *stats::median(xa);
  r.new_median = *stats::median(xb);
  r.ratio = ratio->ratio;
  r.lo = ratio->lo;
  r.hi = ratio->hi;
  r.p = mw->p_value;
  r.hl = hodges_lehmann(xa, xb).value_or(0);
  r.testable = min_possible_p(xa.size(), xb.size()) <= alpha;
  r.significant = r.testable && r.p < alpha;
  if (!r.testable) r.verdict = "too few runs";
  else if (r.p >= alpha) r.verdict = "no significant change";
  else r.verdict = r.ratio > 1 ? metric_info(metric).more : metric_info(metric).less;
  return r;
}

std::vector<std::pair<const CaseResult*, const CaseResult*>> paired_cases(const std::vector<CaseResult>& base,
                                                                          const std::vector<CaseResult>& next) {
  return pairs(base, next, pairing(base, next));
}

namespace {
// Instructions counted by different sources, or under different controls,
// are not the same quantity (counts_unlike): said, and left out of the
// comparison (metric_samples gives both, compare_runs drops them).
void note_counts_unlike(const CountsUnlike& u, const std::string& id, Comparison& out) {
  if (!u.all.empty())
    out.not_compared.push_back(fmt::format("{}: instructions not compared: {}", id, u.all));
  else if (!u.warm_call.empty())
    out.not_compared.push_back(fmt::format("{}: {} not compared: {}", id, instructions_metric("warm_call"), u.warm_call));
}

bool counts_compare(const CountsUnlike& u, const std::string& metric) {
  return u.all.empty() && (u.warm_call.empty() || metric != instructions_metric("warm_call"));
}
}  // namespace

InterferenceShare metric_interference(const CaseResult& c, const std::string& metric) {
  const bool counted = metric_info(metric).rule == MetricRule::Spread, warm = metric == "warm_call_s";
  return measured_share(counted ? c.counted : warm ? c.warm : c.cold, warm);
}

Comparison compare_runs(const std::vector<CaseResult>& base, const std::vector<CaseResult>& next, double alpha) {
  Comparison out;
  const Key by = pairing(base, next);
  case_membership(base, next, by, out);
  for (const auto& [pa, b] : pairs(base, next, by)) {
    const CaseResult& a = *pa;
    if (!timings_comparable(a) || !timings_comparable(*b)) continue;
    const auto sa = metric_samples(a), sb = metric_samples(*b);
    const auto unlike = counts_unlike(a, *b);
    note_counts_unlike(unlike, by(a.c.id), out);
    for (const auto& [metric, xa] : sa) {
      auto it = sb.find(metric);
      if (it == sb.end() || xa.empty() || it->second.empty()) continue;
      const bool counted = metric_info(metric).rule == MetricRule::Spread;
      if (counted && !counts_compare(unlike, metric)) continue;  // said by note_counts_unlike
      auto row = metric_row(by(a.c.id), metric, xa, it->second, alpha);
      if (!row) continue;
      row->base_case_id = a.c.id;
      row->base_interference = metric_interference(a, metric);
      row->new_interference = metric_interference(*b, metric);
      out.log_ratios[metric].push_back(std::log(row->ratio));
      if (counted) {  // no test: neither "too few runs" for the test nor one of alpha x tested
        out.few_counts = out.few_counts || !row->testable;
      } else {
        out.few_runs = out.few_runs || !row->testable;
      }
      if (row->testable && !counted) {
        ++out.tested;
        out.differ += row->significant;
      }
      out.rows.push_back(*row);
    }
  }
  return out;
}

std::string share_text(const InterferenceShare& s) {
  if (s.reported == 0) return "not reported";
  return fmt::format("{}/{}", s.interfered, s.runs);
}

std::vector<const MetricRow*> regressions(const Comparison& c, double pct, double alpha) {
  const double limit = 1.0 + pct / 100.0;
  std::vector<const MetricRow*> out;
  for (const auto& r : c.rows)
    if (gate(r, limit, alpha) == Gate::Regression) out.push_back(&r);
  return out;
}

std::string count_of(const std::string& time_metric) {
  if (time_metric == "cold_import_s") return instructions_metric("import");
  if (time_metric == "cold_first_call_s") return instructions_metric("first_call");
  if (time_metric == "cold_ttfr_s") return instructions_metric("ttfr");
  if (time_metric == "warm_call_s") return instructions_metric("warm_call");
  return "";
}

std::vector<std::string> time_count_disagreements(const Comparison& c) {
  std::vector<std::string> out;
  for (const auto& t : c.rows) {
    const auto counted = count_of(t.metric);
    if (counted.empty() || !t.significant) continue;
    const auto n = std::find_if(c.rows.begin(), c.rows.end(),
                                [&](const MetricRow& r) { return r.case_id == t.case_id && r.metric == counted; });
    if (n == c.rows.end() || !n->testable) continue;
    const bool same_way = n->significant && (n->ratio > 1) == (t.ratio > 1);
    if (same_way) continue;
    out.push_back(fmt::format("{}: {} is {} (×{:.3f} [{:.3f}–{:.3f}]) but {} is {} (×{:.4f} [{:.4f}–{:.4f}]): "
                              "the time moved without the work; a compile that waits on I/O, a lock or other "
                              "threads (or a busy machine) slows in time with equal counts",
                              t.case_id, t.metric, t.verdict, t.ratio, t.lo, t.hi, counted, n->verdict, n->ratio,
                              n->lo, n->hi));
  }
  return out;
}

}  // namespace jitbench::compare
