#pragma once
// The run's question answered first, shared by summary.md and the report: per
// piece of work, which backend gave the first result soonest, which is fastest
// once warm, after how many calls each JIT pays for itself; and what failed, why.
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "report/table.h"
#include "results/model.h"

namespace jitbench {
Table glance_table(const std::vector<CaseResult>& cases, const Analysis& analysis);
// "- **warn** `gpu_unavailable` (2 cases: `a`, `b`): detail" per status, reason
// and detail; "" when every case is ok.
std::string failures_md(const std::vector<CaseResult>& cases);
}  // namespace jitbench
