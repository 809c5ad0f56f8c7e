#pragma once
// What each case's result was verified against (the float64 reference of a
// built-in workload, the eager function for `jitbench measure`, the user's
// --check), by which check, the worst error against its tolerance and how
// many runs passed: shared by summary.md and the report.
#include <vector>

#include "export/sections/section.h"
#include "report/table.h"
#include "results/model.h"

namespace jitbench {
extern const char* const kVerificationIntro;
Table verification_table(const std::vector<CaseResult>& cases);
// Verification: the table, and summary.md's narrower form of it.
Section verification_section(const SectionInput& in);
}  // namespace jitbench
