#pragma once
// A replica of a run against its original (`jitbench replicate`): what must be
// the same (the plan, each case's verified answer) and what may differ within
// noise (the timings). Pure: works on the result model; export/json/replication_json.cc
// writes the documents.
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench::compare {

// A case's outcome with its timings left out: what a replica must reproduce.
struct CaseAnswer {
  std::string case_id;
  std::string status;  // ok / warn / failed; a cross-check that doubts only the phase split counts as ok
  std::string reason;  // the reason's code without its detail ("" when ok)
  int runs = 0, runs_verified = 0;  // measured runs, and those whose every result verified
  bool verified() const { return runs > 0 && runs == runs_verified; }
  bool operator==(const CaseAnswer&) const = default;
};
CaseAnswer case_answer(const CaseResult& c);

// One metric of one case: replica / original, as compare computes it.
struct ReplicaRow {
  std::string case_id, metric;
  std::string verdict;  // consistent, slower, faster, not testable
  std::size_t n_original = 0, n_replica = 0;
  double original_median = 0, replica_median = 0, ratio = 0, lo = 0, hi = 0, p = 1;
};

struct TimingReplication {
  std::vector<ReplicaRow> rows;
  int tested = 0, differ = 0;
  // No metric could be tested (tested == 0): the processes per case and side
  // at which the smallest p Mann-Whitney can give is below alpha, as bisect's
  // inconclusive answer says how many it would take.
  std::optional<int> runs_needed;
};

// A metric differs when it is significantly different (p < alpha) and its
// whole 95% CI of the ratio lies outside [1/(1+tol), 1+tol]: larger than the
// tolerance with confidence, in either direction.
TimingReplication replicate_timings(const std::vector<CaseResult>& original, const std::vector<CaseResult>& replica,
                                    double tolerance_pct, double alpha);

}  // namespace jitbench::compare
