#pragma once
// Two runs, case by case: per metric (one sample per process), the ratio of
// medians with its bootstrap CI, the Mann-Whitney U test, the Hodges-Lehmann
// shift and a verdict; added, removed and status-changed cases. Pure: works
// on the result model, prints nothing (commands/compare.cc does).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/metrics.h"
#include "results/model.h"

namespace jitbench::compare {

// Samples of one metric from a case's ok runs, one value per process: the
// cold metrics from each cold process, the median warm call of each warm
// process, and (run --count) each phase's instructions from each counting
// process, as instructions_<phase> (compare/metrics.h). Warm calls of one process are not independent samples of the
// code's speed (two runs of the same code gave per-case warm ratios from
// 0.45 to 1.76 here: memory layout, thread placement, clock), so they are
// never pooled into the test.
using Samples = std::map<std::string, std::vector<double>>;
Samples metric_samples(const CaseResult& c);
// The interference of the processes behind one metric's samples (its ok cold,
// warm or counting processes; docs/noise.md): what a row's grade is read from.
InterferenceShare metric_interference(const CaseResult& c, const std::string& metric);
// The warm calls of each ok warm process (pyperf's "runs").
std::vector<std::vector<double>> warm_processes(const CaseResult& c);

struct MetricRow {
  std::string case_id, metric, verdict;
  std::string base_case_id;  // BASE's own id of the case (case_id drops the environment where pairs are made without it)
  MetricRule rule = MetricRule::MannWhitney;  // how it was judged (compare/metrics.h); Spread: p is NaN
  std::size_t n_base = 0, n_new = 0;
  double base_median = 0, new_median = 0, ratio = 0, lo = 0, hi = 0, p = 1, hl = 0;
  bool testable = true;  // enough runs for the test to reach alpha
  bool significant = false;  // testable and p < alpha: the verdict is a change
  // How many of each side's processes behind this metric (cold, or warm for
  // warm_call_s) the machine interfered with (docs/noise.md).
  InterferenceShare base_interference, new_interference;
  bool interfered() const { return base_interference.any() || new_interference.any(); }
};

// The instruction-count metric that stands beside a time metric ("" for none).
std::string count_of(const std::string& time_metric);

// "2/5", or "not reported" when none of the side's runs was measured for interference.
std::string share_text(const InterferenceShare& s);

struct Comparison {
  std::vector<MetricRow> rows;
  std::vector<std::string> added, removed, changed;  // changed: "id: ok -> failed (reason)"
  // The changed cases whose status got worse (ok -> warn/failed, warn -> failed):
  // a benchmark that stopped working is a regression for the gate.
  std::vector<std::string> worsened;
  std::map<std::string, std::vector<double>> log_ratios;  // metric -> log NEW/BASE ratios
  bool few_runs = false;  // some metric cannot reach alpha with its sample sizes
  bool few_counts = false;  // some instruction metric has fewer than two counting processes a side
  int tested = 0, differ = 0;
  // Cases whose instructions were not compared, and why (counted by different sources).
  std::vector<std::string> not_compared;
};

// Where a time and its instruction count disagree: the time changed
// significantly while the count stayed within its spread or moved the other
// way (a compile that waits on I/O, a lock or other threads slows in time
// with equal counts). One line each, in the rows' order.
std::vector<std::string> time_count_disagreements(const Comparison& c);

// One metric of one case, BASE against NEW: nullopt when either has no sample.
std::optional<MetricRow> metric_row(const std::string& id, const std::string& metric, const std::vector<double>& xa,
                                    const std::vector<double>& xb, double alpha);

// Cases pair by id; when no id is in both runs but the ids without their
// environment part (`__env-<name>`) pair one to one — two runs of one suite in
// different environments — they pair by that.
Comparison compare_runs(const std::vector<CaseResult>& base, const std::vector<CaseResult>& next, double alpha);

// The pairs compare_runs compares (BASE's case, NEW's case), in BASE's order.
std::vector<std::pair<const CaseResult*, const CaseResult*>> paired_cases(const std::vector<CaseResult>& base,
                                                                          const std::vector<CaseResult>& next);

// Rows that fail --fail-on-regression PCT (exceeds_regression_limit).
std::vector<const MetricRow*> regressions(const Comparison& c, double pct, double alpha);

}  // namespace jitbench::compare
