#pragma once
// Published snapshots over time (`jitbench publish`'s site): per case and
// metric, the median and its 95% CI in each snapshot, one series per machine
// and environment (never one line through different machines), and the steps
// between consecutive snapshots of the same machine that compare's gate
// (--fail-on-regression) would flag. Pure: works on the result model.
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench::compare {

struct SnapshotRun {
  std::string id, time, machine, environment_digest;
  const std::vector<CaseResult>* cases = nullptr;
};

struct HistoryPoint {
  std::size_t snapshot = 0;  // index into the snapshots given, in time order
  double median = 0, lo = 0, hi = 0;
  std::size_t n = 0;
  bool flagged = false;  // the gate flags the step from this group's previous point
  InterferenceShare interference;  // of the processes behind the samples (docs/noise.md, "Grades")
};

// One line: a case's metric on one machine in one environment.
struct HistorySeries {
  std::string case_id, metric, machine, environment_digest;
  std::vector<HistoryPoint> points;
};

// A step the gate flags: a metric significantly worse by more than the limit,
// or a case whose status got worse.
struct FlaggedStep {
  std::string machine, from_id, to_id, case_id, metric;
  InterferenceShare from_interference, to_interference;  // the metric's processes on each side; none for a status
  double ratio = 0, lo = 0, hi = 0, p = 1;
  bool environment_changed = false;  // the software changed between the two snapshots
  std::string status_change;         // "ok -> failed (...)" for a case that stopped working
};

struct History {
  std::vector<std::string> case_ids, metrics;  // every case and metric seen, in first-seen order
  std::vector<HistorySeries> series;
  std::vector<FlaggedStep> flagged;            // every step flagged, oldest first
  std::vector<FlaggedStep> since_last;         // those into each machine's newest snapshot
};

// The metrics shown, in order: compare's, one sample per process.
std::vector<std::string> history_metrics(const std::vector<CaseResult>& cases);

History build_history(const std::vector<SnapshotRun>& snapshots, double pct, double alpha);

}  // namespace jitbench::compare
