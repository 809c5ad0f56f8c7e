// Two runs measured side by side (`jitbench noise`, `compare --remeasure`):
// each side started as a run of its own, their cold processes interleaved.
#include <fmt/format.h>

#include <cstring>
#include <filesystem>

#include "commands/run/progress.h"
#include "commands/run/run.h"
#include "export/json/json_util.h"
#include "plan/shard.h"
#include "util/fs.h"
#include "util/interrupt.h"

namespace jitbench {
// The directory the sides of `noise` and `compare --remeasure` go into: new or empty.
void make_empty_dir(const std::filesystem::path& dir, const char* flag, const char* what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw UserError(fmt::format("{} '{}' is a file: give a new or empty directory for {}", flag, dir.string(), what));
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw UserError(fmt::format("{} '{}' is not empty: give a new or empty directory for {}", flag, dir.string(), what));
  try {
    make_root_dir(dir);
  } catch (const WriteError& e) {
    throw UserError(fmt::format("cannot create {} '{}': {}", flag, dir.string(), std::strerror(e.error)));
  }
}

NoiseSide start_noise_side(const RunOptions& o, const PlannedRun& p, const std::filesystem::path& dir,
                           const std::vector<std::string>& command, ProcessLauncher& launcher) {
  auto prepared = OutDir::prepare(dir);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  NoiseSide side{std::get<OutDir>(prepared), {}, worker_setup(o, p.suite), {}};
  side.setup.out_dir = side.out.root();
  side.h = start_run(o, p, side.setup, side.out, command);
  // A side is half of a comparison, not a run to finish alone: no options to resume from (its command,
  // `noise` or `compare`, is no run's, and --resume refuses it, as the interruption's message says).
  side.h.sections.options.reset();
  if (auto code = finish_starting(side.h, o, p, side.setup, side.out, launcher)) throw SidesInterrupted{};
  prepare_environments(p, o, side.setup, side.h, side.out, launcher);
  if (interrupted()) throw SidesInterrupted{};
  write_run_artifacts(side.out, side.h, {}, p.cases.empty(), nullptr,
                      {{"environment.json", json_text(side.h.info.environment.manifest)}});
  return side;
}

// Pair by pair, the two sides' cold processes round-robin (or, with
// --no-interleave, one side's after the other's); each side's artifacts
// rewritten after every pair. Returns false when interrupted.
bool measure_sides(const std::vector<std::pair<Case, Case>>& pairs, bool interleave, bool quiet, NoiseSide& a,
                   NoiseSide& b, const std::vector<std::string>& runs, ProcessLauncher& launcher) {
  CaseRunner ra(launcher, a.setup), rb(launcher, b.setup);
  std::vector<double> costs;  // the cost model at the default counts, both sides
  for (const auto& pair : pairs) costs.push_back(2 * modelled_cost_s(pair.first, 6, 30));
  const Progress progress(quiet, std::move(costs));
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [ca, cb] = pairs[i];
    Interleaved m;
    if (!interleave) {
      m.results = {ra.run(ca, progress.for_case(i, ca)), rb.run(cb, progress.for_case(i, cb))};
    } else {
      m = run_side_by_side({{&ra, ca}, {&rb, cb}}, progress.for_case(i, ca));
      InterleavedGroup g{{ca.id, cb.id}, runs, {}};
      for (const auto& st : m.order) g.order.push_back({st.side, st.run});
      for (auto* side : {&a, &b}) {
        if (!side->h.sections.interleaved) side->h.sections.interleaved.emplace();
        side->h.sections.interleaved->push_back(g);
      }
    }
    const bool last = i + 1 == pairs.size(), stop = interrupted();
    const Stopped why{"interrupted", stop ? fmt::format("signal {}", interrupt_signal()) : ""};
    for (auto [side, k] : {std::pair{&a, 0}, std::pair{&b, 1}}) {
      side->results.push_back(std::move(m.results[std::size_t(k)]));
      fit_case_schema(side->results.back());
      if (k == 0) progress.done(i, side->results.back());
      write_run_artifacts(side->out, side->h, side->results, last && !stop, stop ? &why : nullptr);
    }
    if (stop) return false;
  }
  return true;
}

}  // namespace jitbench
