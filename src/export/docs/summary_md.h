#pragma once
// summary.md: the human summary of a run, from the result model and its
// analysis, every table through report/table.h.
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "compare/releases.h"
#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {
std::string summary_md(const RunInfo& info, const std::vector<CaseResult>& cases, const Analysis& analysis,
                       const std::vector<compare::ReleaseRow>& releases = {});
// "cpu · N logical cores · os · Python x · packages": one line for a machine.
std::string environment_line(const EnvironmentInfo& env);
}  // namespace jitbench
