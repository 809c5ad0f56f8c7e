// The case loop: the plan measured case by case (or group by group), every
// artifact rewritten after each, a signal or a refused write recorded.
#include <fmt/format.h>

#include <map>

#include "commands/common/common.h"
#include "commands/run/progress.h"
#include "commands/run/run.h"
#include "export/json/json_util.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace {
// A write the out dir refused (full disk, read-only: exit 4; a link planted
// below it: exit 13): the run stops, the index says why, what was recorded
// stays valid.
int stop_on_write_error(const OutDir& out, const RunHeader& h, std::vector<CaseResult> results, bool last_recorded,
                        const WriteError& e) {
  if (!last_recorded && !results.empty()) results.pop_back();
  const Stopped stopped{"write_failed", e.what()};
  const bool indexed = write_stop_index(out, h, results, stopped);
  say(stderr, "jitbench: {}; stopped after recording {} of {} cases.{} {}\n", e.what(), results.size(),
      h.info.n_planned, indexed ? "" : " The index could not be updated: it describes the results before this case.",
      e.link_refused() ? "Remove the link; `jitbench run --resume` then measures the remaining cases."
                       : "Free space or make the out dir writable, then run the remaining cases into a new --out-dir.");
  return e.link_refused() ? kExitLinkRefused : kExitWriteFailed;
}

// The cases from plan[i] on that are measured side by side with it: the same
// case in the next environments (adjacent in the plan), none of them kept.
std::size_t group_end(const std::vector<Case>& plan, std::size_t i, const std::map<std::string, CaseResult>& keep,
                      bool interleave) {
  std::size_t j = i + 1;
  if (!interleave || plan[i].env.empty() || keep.count(plan[i].id)) return j;  // a kept case is a group of its own
  const auto key = without_environment(plan[i].id);
  while (j < plan.size() && !plan[j].env.empty() && without_environment(plan[j].id) == key && !keep.count(plan[j].id))
    ++j;
  return j;
}

// Measures plan[i, end): one case alone, or several interleaved (recorded in the index).
void measure_group(RunHeader& h, CaseRunner& runner, const std::vector<Case>& plan, std::size_t i, std::size_t end,
                   const Progress& progress, std::vector<CaseResult>& results) {
  const std::vector<Case> cases(plan.begin() + std::ptrdiff_t(i), plan.begin() + std::ptrdiff_t(end));
  auto measured = runner.run_interleaved(cases, progress.for_group(i, cases));
  if (cases.size() > 1) {
    InterleavedGroup g;
    for (const auto& c : cases) g.cases.push_back(c.id);
    for (const auto& st : measured.order) g.order.push_back({st.side, st.run});
    if (!h.sections.interleaved) h.sections.interleaved.emplace();
    h.sections.interleaved->push_back(std::move(g));
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    results.push_back(std::move(measured.results[k]));
    fit_case_schema(results.back());
    progress.done(i + k, results.back());
    if (h.sections.resumed) h.sections.resumed->back().remeasured.push_back(cases[k].id);
  }
}
}  // namespace

int final_line(const std::vector<CaseResult>& results, const OutDir& out) {
  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& r : results) (r.status == Status::Ok ? n_ok : r.status == Status::Warn ? n_warn : n_failed)++;
  say(stdout, "{} cases: {} ok, {} warn, {} failed. Summary: {}\n", results.size(), n_ok, n_warn, n_failed,
      (out.root() / "summary.md").string());
  return n_failed > 0 ? 2 : 0;
}

// Runs `plan` into `out`, in order, writing every artifact after each case
// (or each group of cases measured side by side); a case found in `keep` (a
// resumed run's measured cases) is kept as it is. When the header records a
// resumption, the cases measured now are added to it.
int run_cases(const OutDir& out, RunHeader h, CaseRunner& runner, const std::vector<Case>& plan,
              std::map<std::string, CaseResult> keep, bool quiet, bool interleave, std::vector<double> costs) {
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (keep.count(plan[i].id)) costs[i] = 0;  // kept: no time
  const Progress progress(quiet, std::move(costs));
  std::vector<CaseResult> results;
  results.reserve(plan.size());
  try {
    // The environment as probed, with the index that lists it: one step.
    write_run_artifacts(out, h, results, plan.empty(), nullptr,
                        {{"environment.json", json_text(h.info.environment.manifest)}});
  } catch (const WriteError& e) {
    return stop_on_write_error(out, h, results, true, e);
  }
  for (std::size_t i = 0, end = 0; i < plan.size(); i = end) {
    end = group_end(plan, i, keep, interleave);
    const bool last = end == plan.size();
    if (auto it = keep.find(plan[i].id); it != keep.end()) {
      results.push_back(std::move(it->second));
      if (!last) continue;
    } else {
      try {
        measure_group(h, runner, plan, i, end, progress, results);
      } catch (const WriteError& e) {  // a link planted where a case writes: nothing of that case is kept
        return stop_on_write_error(out, h, results, true, e);
      }
    }
    const bool stop = interrupted();
    const Stopped why{"interrupted", stop ? fmt::format("signal {}", interrupt_signal()) : ""};
    try {
      write_run_artifacts(out, h, results, last && !stop, stop ? &why : nullptr);
    } catch (const WriteError& e) {
      return stop_on_write_error(out, h, results, false, e);
    }
    if (stop) {
      say(stderr, "jitbench: interrupted after {} of {} cases; results so far are in {} (finish them with "
                  "`jitbench run --resume {}`)\n",
          results.size(), plan.size(), out.root().string(), out.root().string());
      return 128 + interrupt_signal();
    }
  }
  return final_line(results, out);
}

}  // namespace jitbench
