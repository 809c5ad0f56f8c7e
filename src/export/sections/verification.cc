#include "export/sections/verification.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "export/docs/case_names.h"
#include "report/format.h"

namespace jitbench {

const char* const kVerificationIntro =
    "What each case's result was checked against, as its worker reported it: a built-in workload's float64 "
    "reference, the eager function itself for `jitbench measure` without `--check` (docs/your-code.md), or the "
    "user's check. Every verdict counts: each process's last call and, where the worker checked it apart, its "
    "first (compiling) call. The worst error is the largest of them (nan where one was not a number), beside the "
    "tolerance it was held to; \"not reported\" where the worker did not say.";

namespace {
struct VerifiedRuns {
  const Verification* first = nullptr;  // the first verdict given at all
  int checked = 0, passed = 0;
  std::optional<double> worst, tolerance;  // worst: NaN when a verdict's error was not a number
};

VerifiedRuns verified_runs(const CaseResult& c) {
  VerifiedRuns v;
  const auto add = [&](const Verification& got) {
    if (!got.present) return;
    if (!v.first) v.first = &got;
    ++v.checked;
    v.passed += got.ok ? 1 : 0;
    if (!got.error || (v.worst && std::isnan(*v.worst))) return;
    if (!v.worst || std::isnan(*got.error) || *got.error > *v.worst) v.worst = got.error, v.tolerance = got.tolerance;
  };
  for (const auto* runs : {&c.cold, &c.warm})
    for (const auto& r : *runs) add(r.worker.verify_first), add(r.worker.verify);
  return v;
}

std::string or_not_reported(const std::string& s, bool code) {
  if (s.empty()) return "not reported";
  return code ? md_code(s) : md_cell(s);
}
}  // namespace

Table verification_table(const std::vector<CaseResult>& cases) {
  Table t{{"Case", "Verified against", "Check", "Worst error (tolerance)", "Verdicts passed"}, {}};
  for (const auto& c : cases) {
    if (c.cold.empty() && c.warm.empty()) continue;  // never measured: its status says why
    const auto v = verified_runs(c);
    if (!v.first) {
      t.add({case_name_md(c.c), "not reported", "not reported", "—", "no run gave a verdict"});
      continue;
    }
    std::string worst = "not reported";
    if (v.worst)
      worst = fmt::format("{:.3g}{}", *v.worst, v.tolerance ? fmt::format(" (≤ {:.3g})", *v.tolerance) : "");
    t.add({case_name_md(c.c), or_not_reported(v.first->reference, false), or_not_reported(v.first->metric, true), worst,
           fmt::format("{} of {}", v.passed, v.checked)});
  }
  return t;
}

namespace {
// Case, Verified against, Check, ...: summary.md writes the check beside what it checks against, to fit a screen.
Table verification_screen(Table t) {
  t.columns[1] = "Verified against (check)";
  t.columns.erase(t.columns.begin() + 2);
  for (auto& r : t.rows) {
    if (r.cells[2] != "not reported") r.cells[1] += " (" + r.cells[2] + ")";
    r.cells.erase(r.cells.begin() + 2);
  }
  return t;
}
}  // namespace

Section verification_section(const SectionInput& in) {
  Section s;
  s.id = "verification";
  s.heading = "Verification";
  s.explanation = kVerificationIntro;
  s.table = verification_table(in.cases);
  s.screen = verification_screen(s.table);
  return s;
}

}  // namespace jitbench
