#include "export/sections/counts.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/format.h"
#include "results/counts.h"

namespace jitbench {

const char* const kCountsIntro =
    "Each case's instructions per phase, counted in processes of their own after its timed ones "
    "(`--count instructions`): the median over the counting processes and their spread ((max − min) / median), "
    "with what counted them (valgrind: callgrind, every thread; hardware: the main thread's user-space counter). "
    "The load does not move a count the way it moves a time; a phase that waits (I/O, a lock, another thread) "
    "counts what it executes, not how long it waits. `first_call.<stage>`: a boundary inside the first call "
    "(JAX's ahead-of-time stages, numba's compile events); `warm_call` is per call (docs/noise.md, Instructions).";

namespace {
std::string count_spread_cell(const CountPhaseSummary& p) {
  if (!p.spread_pct) return p.n < 2 ? "— (1 process)" : "—";
  return fmt::format("{:.3f}%", *p.spread_pct);
}
}  // namespace

Table counts_table(const std::vector<CaseResult>& cases) {
  Table t{{"Case", "Source", "Phase", "Instructions (median)", "Spread", "n"}, {}};
  for (const auto& c : cases) {
    auto source = count_source(c);
    if (std::any_of(c.counted.begin(), c.counted.end(), [](const RunRecord& r) { return r.counts && r.counts->fake; }))
      source += " (a test's fake counter: not instructions)";
    bool first = true;
    for (const auto& p : count_summary(c)) {
      t.add({first ? md_code(c.c.id) : "", first ? source : "", md_code(p.phase), format_count(p.median),
             count_spread_cell(p), std::to_string(p.n)});
      first = false;
    }
  }
  return t;
}

std::vector<std::string> counts_not_taken(const std::vector<CaseResult>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases) {
    if (!c.count) continue;
    if (!c.count->unsupported.empty()) {
      out.push_back(fmt::format("{}: not counted: {}", md_code(c.c.id), c.count->unsupported));
      continue;
    }
    int failed = 0;
    std::string why;
    for (const auto& r : c.counted)
      if (r.status != Status::Ok) ++failed, why = to_string(r.reason) + (r.detail.empty() ? "" : ": " + r.detail);
    if (failed > 0)
      out.push_back(fmt::format("{}: {} of {} counting processes counted nothing ({})", md_code(c.c.id), failed,
                                c.counted.size(), why));
    else if (c.counted.empty())
      out.push_back(fmt::format("{}: not counted (its timed runs did not finish)", md_code(c.c.id)));
  }
  return out;
}

std::vector<std::string> first_call_splits(const std::vector<CaseResult>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases)
    for (const auto& r : c.counted)
      if (r.status == Status::Ok && r.counts) {
        out.push_back(fmt::format("{}: {}", md_code(c.c.id), r.counts->first_call_split));
        break;
      }
  return out;
}

Section counts_section(const SectionInput& in) {
  Section s;
  s.id = "counts";
  s.heading = "Instructions";
  if (std::none_of(in.cases.begin(), in.cases.end(), [](const CaseResult& c) { return c.count.has_value(); }))
    return s;  // nothing was asked to be counted: no section
  s.always = true;
  s.explanation = kCountsIntro;
  s.table = counts_table(in.cases);
  s.lists = {{"The first call, divided or not:", first_call_splits(in.cases)},
             {"What was not counted:", counts_not_taken(in.cases)}};
  return s;
}

}  // namespace jitbench
