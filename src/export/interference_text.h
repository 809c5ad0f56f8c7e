#pragma once
// The words summary.md, the report and compare use for interference
// (docs/noise.md, "Interference"): per case and for a whole run.
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {

// Every measured process of a case: cold and warm (the priming run and the
// cross-check are not measured runs of the case).
InterferenceShare case_interference(const CaseResult& c);

// "3/10 cold runs and 1/1 warm runs interfered with"; "" when none was.
std::string case_interference_text(const CaseResult& c);

// The run's line: how many measured processes were interfered with, of how
// many measured; says "not reported" for those that were not measured.
std::string run_interference_line(const std::vector<CaseResult>& cases);

// summary.md's "## Interference" section: the run's line, then one line per
// case with interference (and a cross-check disagreement put down to it).
// What the Interference section shows, said once (summary.md's "How to read").
extern const char* const kInterferenceIntro;
std::string interference_section_md(const std::vector<CaseResult>& cases);

}  // namespace jitbench
