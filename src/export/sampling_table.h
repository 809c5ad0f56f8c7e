#pragma once
// The sampling table (how many runs each case got, why no more, and the
// distribution-free 95% interval of the median each side reached), shared by
// summary.md and the report.
#include <vector>

#include "report/table.h"
#include "results/model.h"

namespace jitbench {
extern const char* const kSamplingIntro;
Table sampling_table(const std::vector<CaseResult>& cases);
}  // namespace jitbench
