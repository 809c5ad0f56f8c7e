#pragma once
// What `compare --fail-on-regression` decided, row by row, once any
// re-measurement is in: one record that the text, Markdown and JSON outputs
// all read (export/json/compare_export.h), so they never disagree. Pure.
//
// A row that would fail while either side had a process interfered with or
// not reported (InterferenceShare::all_quiet) is re-measured,
// interleaved, before it may fail: the gate then fails only on what the
// re-measurement confirms. Instruction counts (the spread rule) do not depend
// on what else the machine ran (docs/noise.md, "Instructions"), so they are
// judged as measured. Where BASE cannot be re-measured, a time row whose own
// instruction count (the same phase, compare::count_of) was compared and
// decided is left to that count; any other row is judged as measured. A
// re-measurement that neither confirms nor clears a row leaves it not judged.
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.h"

namespace jitbench::compare {

enum class RowGate {
  None,          // no threshold given
  Regression,    // fails: measured on quiet sides (or judged as measured)
  NotJudged,     // undecided: too few runs, or an interval across the limit
  Ok,            // clear of the limit
  Cleared,       // would have failed; the re-measurement cleared it
  Confirmed,     // would have failed; the re-measurement confirmed it (fails)
  LeftToCounts,  // would have failed on a not-quiet side; left to its instruction counts (not failing)
};
// "regression", "not judged", "ok", "cleared by re-measurement", "confirmed
// by re-measurement", "left to instruction counts"; "" for None.
const char* to_string(RowGate g);
bool fails(RowGate g);

struct GatedRow {
  MetricRow row;
  RowGate gate = RowGate::None;
  std::optional<MetricRow> remeasured;  // the same case and metric, re-measured side by side
};

struct GateVerdict {
  std::string base, next;
  std::optional<double> threshold_pct;
  double alpha = 0.05;
  int exit_code = 0;
  std::optional<std::string> remeasure_dir;   // where the re-measurement was written
  std::vector<std::string> remeasured_cases;  // BASE's ids, in order
  std::optional<std::string> cannot_remeasure;
  // Why nothing was compared (the runs have no case in common); none otherwise.
  std::optional<std::string> nothing_compared;
  std::vector<GatedRow> rows;
  std::vector<std::string> worsened, removed, added;
  // What was left out and why (instructions counted by another source or
  // under other controls): Comparison::not_compared.
  std::vector<std::string> not_compared;
};

// Whether a row's failure needs a re-measurement before it counts: it would
// fail, it is a time or memory row, and either side had a process interfered
// with or not reported.
bool needs_remeasure(const MetricRow& r, double pct, double alpha);

// The cases (BASE's ids, first appearance order) with a row needing a re-measurement.
std::vector<std::string> cases_to_remeasure(const Comparison& c, double pct, double alpha);

// Each row gated against `pct` (none: no gate). `remeasuring` false
// (--no-remeasure): every row judged as measured, as before re-measuring
// existed. Else `again` is the comparison of the re-measured cases, or none
// where BASE could not be re-measured.
GateVerdict gate_rows(const Comparison& c, std::optional<double> pct, double alpha,
                      const std::optional<Comparison>& again, bool remeasuring);

}  // namespace jitbench::compare
