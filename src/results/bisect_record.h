#pragma once
// What `jitbench bisect` records (OUT/bisect.json, jitbench.bisect.v5): every
// step measured and the result, typed; export/json/bisect_json.cc writes them.
#include <optional>
#include <string>
#include <vector>

#include "results/anatomy.h"

namespace jitbench {

// One case of a step judged against a reference (the good end, or the
// boundary's other side): compare's row for the metric and the decision.
struct BisectEvidence {
  std::string case_id;
  double median = 0, good_median = 0, ratio = 0, ratio_lo = 0, ratio_hi = 0;  // medians in `unit`
  std::optional<double> p;  // the Mann-Whitney p; nullopt under the spread rule (an instruction count: no test)
  bool testable = false, regression = false;
  std::string decision;  // "regression", "clear" or "inconclusive"
  std::string unit = "s";              // "s" or "instructions"
  std::string rule = "mann_whitney";   // "mann_whitney" or "spread" (compare/metrics.h)
  bool operator==(const BisectEvidence&) const = default;
};

// A case as a step's run recorded it.
struct BisectStepCase {
  std::string case_id, status;
  std::string reason;  // "" written null
  // The case's interference over its measured processes (docs/noise.md,
  // "Grades"): quiet, busy, contended or not reported; "" omitted (steps
  // recorded before grades). others_cpus: the CPUs others took, median.
  std::string grade;
  std::optional<double> others_cpus;
  bool operator==(const BisectStepCase&) const = default;
};

// One `jitbench run` of the selection in a release's environment.
struct BisectStep {
  std::string version, role, dir;  // role: good, bad, step, remeasure, confirm; dir: relative to OUT
  int exit_code = 0;
  std::string verdict;  // measured, good, bad, inconclusive, failed, unmeasurable
  std::vector<BisectStepCase> cases;
  std::optional<std::vector<BisectEvidence>> against_good;  // once judged against the good end
  std::string commit, subject;  // bisect --git: the step's commit (full id, also its version) and subject; "" omitted
  bool operator==(const BisectStep&) const = default;
};

// bisect --git: the repository and the revisions as given (the document's
// good and bad are the commits they name, its candidates every commit id).
struct BisectGit {
  std::string repository;  // absolute
  std::string good_rev, bad_rev;
  bool operator==(const BisectGit&) const = default;
};

// bisect --anatomy: one case's compile sub-phases that moved between the
// boundary's last good (BASE) and first bad (NEW) side, largest change first.
struct BisectAnatomy {
  std::string case_id;
  std::vector<SubPhaseDelta> items;
  bool operator==(const BisectAnatomy&) const = default;
};

// How the bisection ended.
struct BisectResult {
  std::string status;  // found, unconfirmed, no_regression, inconclusive, unmeasurable
  std::string first_bad, last_good;  // "" written null
  std::optional<std::string> unmeasurable;  // the end that gave no comparable measurement
  std::optional<std::vector<BisectEvidence>> evidence;  // the ends, when they decided it
  std::optional<long> more_runs_needed;  // inconclusive ends: runs per end to add this round
  std::optional<long> runs_needed_estimate;  // inconclusive ends: runs per end the estimate says would decide them
  std::optional<bool> decidable;  // inconclusive ends: false where that is past what bisect measures (this noise)
  // The search ran: skipped, overturned and confirmation are written, and
  // skipped_between when some release between the two could not be measured.
  bool searched = false;
  std::vector<std::string> skipped, overturned, skipped_between;
  std::optional<std::vector<BisectEvidence>> confirmation;  // null when the boundary was never judged
  // bisect --anatomy, once the boundary was measured: per case with anatomy on both sides.
  std::optional<std::vector<BisectAnatomy>> boundary_anatomy;
  bool operator==(const BisectResult&) const = default;
};

}  // namespace jitbench
