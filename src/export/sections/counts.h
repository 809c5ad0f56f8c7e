#pragma once
// The instruction counts of a run (run --count instructions; results/counts.h)
// as one table: per case and phase, the median over the counting processes
// and their spread, with the source. summary.md's "Instructions" section and
// the report's render the same table.
#include <string>
#include <vector>

#include "export/sections/section.h"
#include "report/table.h"
#include "results/model.h"

namespace jitbench {
// Empty when no case was counted.
Table counts_table(const std::vector<CaseResult>& cases);
// What was asked to be counted and was not, one line of Markdown inline each ("`case`: why").
std::vector<std::string> counts_not_taken(const std::vector<CaseResult>& cases);
// Per counted case, how its first call was divided (or why not), from its first
// counting process that counted: "`case`: text" (Markdown inline).
std::vector<std::string> first_call_splits(const std::vector<CaseResult>& cases);
// The paragraph above the table (Markdown).
extern const char* const kCountsIntro;
// Instructions (run --count): the table and its lists; shown only when something was asked to be counted.
Section counts_section(const SectionInput& in);
}  // namespace jitbench
