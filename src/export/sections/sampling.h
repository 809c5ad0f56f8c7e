#pragma once
// The sampling table (how many runs each case got, why no more, and the
// distribution-free 95% interval of the median each side reached), shared by
// summary.md and the report.
#include <string>
#include <vector>

#include "export/sections/section.h"
#include "report/table.h"
#include "results/model.h"

namespace jitbench {
extern const char* const kSamplingIntro;
Table sampling_table(const std::vector<CaseResult>& cases);
// Every case sampled a fixed count: the Sampling section is one sentence then.
bool all_fixed_counts(const std::vector<CaseResult>& cases);
// That sentence: "A fixed count of processes for every case (3 cold runs; ...)".
std::string fixed_counts_sentence(const std::vector<CaseResult>& cases);
// The spread of a median, by the Sampling section's rule: "95% CI a–b" where
// the values give the distribution-free interval, else "n = 3, range a–b"
// ("n = 1" alone, "n = 3, all a" for equal values, "—" for none).
std::string spread_cell(const std::vector<double>& values);
// "a–b" with one unit where both ends share it: "150.54–164.74 ms".
std::string seconds_range(double lo, double hi);
// Sampling: the table, or with fixed counts for every case the one sentence that says all.
Section sampling_section(const SectionInput& in);
}  // namespace jitbench
