#pragma once
// A case's instruction counts (results/counts.h) -> its case file's "counts"
// (an optional addition to jitbench.case.v6): how they were counted, the
// counting processes' records, and per phase the median with its spread.
#include <nlohmann/json.hpp>

#include "results/model.h"

namespace jitbench {
// null when the case was not asked to count.
nlohmann::json counts_json(const CaseResult& r);
// One counting process's counts (a run's "counts").
nlohmann::json run_counts_json(const RunCounts& c);
}  // namespace jitbench
