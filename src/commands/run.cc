// `jitbench run`: suite -> plan -> one CaseRunner per case -> the artifacts,
// rewritten after every case so that an interrupted run keeps its results.
// The steps are commands/run/: inputs and plan, start, environments, the case
// loop and its progress.
#include <fmt/format.h>

#include <filesystem>

#include "commands/commands.h"
#include "commands/run/run.h"
#include "util/interrupt.h"

namespace jitbench {

int cmd_run(const RunOptions& o, const std::vector<std::string>& command, const InputCopies& inputs) {
  require_utf8_cwd();
  require_affinity(o.affinity);
  const PlannedRun p = make_planned_run(o, inputs);
  WorkerSetup setup = worker_setup(o, p.suite);
  const auto out_path = o.out_dir.empty() ? OutDir::fresh_default("jitbench-out") : std::filesystem::path(o.out_dir);
  require_outside_inputs(out_path.string(), "--out-dir", {{"--costs", o.costs_dir}});
  auto prepared = OutDir::prepare(out_path);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  const OutDir out = std::get<OutDir>(prepared);
  setup.out_dir = out.root();
  install_interrupt_handlers();  // the out dir is a run from here on: a signal is recorded, never lost
  RunHeader h = start_run(o, p, setup, out, command);
  Launchers launchers(o.affinity);
  if (auto code = finish_starting(h, o, p, setup, out, launchers.posix)) return *code;
  prepare_environments(p, o, setup, h, out, launchers.posix);
  if (auto code = stopped_preparing(out, h)) return *code;
  announce(o.quiet, p.cases.size(), setup, out,
           p.shard ? fmt::format(" (shard {} of {})", p.shard->index, p.shard->count) : "");
  CaseRunner runner(launchers.get(), setup);
  return run_cases(out, std::move(h), runner, p.cases, {}, o.quiet, !o.no_interleave, costs_of_cases(p));
}

}  // namespace jitbench
