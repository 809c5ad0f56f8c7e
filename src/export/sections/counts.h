#pragma once
// The instruction counts of a run (run --count instructions; results/counts.h)
// as one table: per case and phase, the median over the counting processes
// and their spread, with the source. summary.md's "Instructions" section and
// the report's render the same table.
#include <string>
#include <vector>

#include "report/table.h"
#include "results/model.h"

namespace jitbench {
// Empty when no case was counted.
Table counts_table(const std::vector<CaseResult>& cases);
// What was asked to be counted and was not, one Markdown line each ("- `case`: why").
std::vector<std::string> counts_not_taken(const std::vector<CaseResult>& cases);
// Per counted case, how its first call was divided (or why not), from its first
// counting process that counted: "`case`: text" (Markdown inline).
std::vector<std::string> first_call_splits(const std::vector<CaseResult>& cases);
// The paragraph above the table (Markdown).
extern const char* const kCountsIntro;
// "" when no case was asked to count.
std::string counts_section_md(const std::vector<CaseResult>& cases);
}  // namespace jitbench
