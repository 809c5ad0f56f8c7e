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

// "quiet", "busy", "contended" or "not reported" (docs/noise.md, "Grades").
std::string grade_word(const InterferenceShare& s);
// A table cell: "quiet", "busy 1.1", "contended 1.7" (the CPUs others took,
// median over the processes), "—" when not reported.
std::string grade_cell(const InterferenceShare& s);

// Each side with interference, its grade and the CPUs others took:
// "cold runs contended (others 1.7 of 2 CPUs; 3/10 interfered with) and warm
// runs busy (others 1.1 of 2 CPUs; 1/1 interfered with)"; "" when none was.
std::string case_interference_text(const CaseResult& c);

// The run's line: its grade, how many measured processes were interfered
// with (by grade) of how many measured, and the range of CPUs others took;
// says "not reported" for those that were not measured.
std::string run_interference_line(const std::vector<CaseResult>& cases);

// summary.md's "## Interference" section: the run's line, then one line per
// case with interference (and a cross-check disagreement put down to it).
// What the Interference section shows, said once (summary.md's "How to read").
extern const char* const kInterferenceIntro;
std::string interference_section_md(const std::vector<CaseResult>& cases);

}  // namespace jitbench
