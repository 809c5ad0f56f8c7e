#pragma once
// A section of a document, built once from a run's results (one file each in
// this folder) and rendered by every document that shows it: summary.md and
// report.md through section_md, report.html through its template
// (src/report/figures/jitbench_figures/templates/report.html) from
// section_page_json. A document's list of sections says which it shows
// (docs/summary_md.cc kSummarySections, docs/report_doc.cc kReportSections).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "report/table.h"
#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {

// Everything a section may read.
struct SectionInput {
  const std::vector<CaseResult>& cases;
  const Analysis& analysis;
  const EnvironmentInfo& environment;
};

// A list below the section's table: its title ("What was not counted:") and
// its items, each one line of Markdown-inline text.
struct SectionList {
  std::string title;
  std::vector<std::string> items;
};

struct Section {
  std::string id;       // report.html's anchor: "sampling"
  std::string heading;  // "Sampling"
  // How to read the section, the same for every run: under the heading in the
  // report; summary.md says it once in its "How to read" block instead.
  std::string explanation;
  // What this run says in place of a table ("A fixed count of processes ..."): under the heading everywhere.
  std::string text;
  // A line summary.md shows above the table, which the report says in its Environment table ("Ceilings: ...").
  std::string context;
  Table table;   // empty: none
  Table screen;  // summary.md's narrower form of the table, to fit a screen; no columns: the table itself
  bool compact = false;  // the report compacts the table too (a note every row repeats, written once below it)
  bool always = false;   // shown without table or text: what was asked is said to be missing (its lists)
  std::vector<SectionList> lists;
  // report.html only, below the table: what the page's figures show of these rows.
  std::string page_note;
};

// Whether a document shows the section at all.
bool section_shown(const Section& s);

// How a document shows a section in Markdown: summary.md fits a screen (every
// table compacted, the explanation in its "How to read"); the report, and
// summary.md for a section "How to read" does not explain, keep the
// explanation under the heading and the table whole.
enum class SectionForm { Screen, Full };
// "\n## Heading\n\n..." ; "" when not shown.
std::string section_md(const Section& s, SectionForm form);

// The section for report.html's template: {kind "section", id, heading, intro,
// table, lists, note}; null when not shown.
nlohmann::json section_page_json(const Section& s);

}  // namespace jitbench
