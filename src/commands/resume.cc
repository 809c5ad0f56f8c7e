// `jitbench run --resume DIR`: the command and environment from DIR's index,
// the cases it measured kept, those missing or interrupted measured now.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "cli/recorded_options.h"
#include "commands/commands.h"
#include "commands/run/run.h"
#include "results/read.h"
#include "util/build_info.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace {
// The header of a resumed run: the command, suite, environment, shard,
// inputs and Slurm ids as recorded, and one more resumption.
RunHeader resumed_header(const LoadedRun& old, const RunOptions& o, const PlannedRun& p,
                         const std::map<std::string, CaseResult>& keep) {
  RunHeader h;
  h.argv = old.index.command;
  h.deterministic = o.deterministic;
  h.started_at = old.index.started_at;
  h.info.suite_name = old.index.suite_name;
  h.info.suite_source = old.index.suite_source;
  for (const auto& a : h.argv) h.info.command += (h.info.command.empty() ? "" : " ") + a;
  h.info.n_planned = p.cases.size();
  h.info.environment = old.environment;
  h.sections.shard = old.index.shard;
  keep_recorded_inputs(old.index, h);
  h.sections.slurm = old.index.slurm;
  // The build that started the run; a resumption by another build says so in its own entry.
  h.sections.jitbench_git = old.index.jitbench_git;
  h.sections.machine = old.index.machine;
  // The options it was started with (an index before v5: those its command gave, as parsed now).
  h.sections.options = old.index.options ? *old.index.options : recorded_options(o);
  h.sections.resumed = old.index.resumed.value_or(std::vector<Resumption>{});
  std::set<std::string> kept_ids;
  for (const auto& [id, c] : keep) kept_ids.insert(id);
  h.sections.interleaved = groups_of_kept_cases(old.index.interleaved, kept_ids);  // measure_group adds the new ones
  Resumption resumption{o.deterministic ? "" : utc_now(), keep.size(), {}, std::nullopt, std::nullopt};
  if (auto slurm = slurm_ids(); !slurm.empty()) resumption.slurm = slurm;  // a requeued task, say
  const auto& then = old.index.jitbench_git;  // none in runs recorded before index v3
  if (!then || then->sha != build_info().sha) resumption.jitbench_git = this_build();
  h.sections.resumed->push_back(std::move(resumption));
  return h;
}

// A run made with the test-only switch (GPU backends on the CPU) is resumed
// with it, and one made without, without: every case on the same device.
void require_same_test_switch(const EnvironmentInfo& then, const std::string& dir) {
  const char* now = std::getenv(kTestGpuOnCpu);
  if (then.test_gpu_on_cpu == (now && std::string(now) == "1")) return;
  throw UserError(fmt::format("--resume: {} was started {} the test-only switch {}=1; resume it {} that switch, so "
                              "that every case ran on the same device", dir, then.test_gpu_on_cpu ? "with" : "without",
                              kTestGpuOnCpu, then.test_gpu_on_cpu ? "with" : "without"));
}

// The out dir's index read and the run checked as --resume may take it
// (require_resumable_run): the ids of the failed cases whose files were
// rewritten (the caller refuses any of them it would keep) and the files of
// unrecorded cases; a UserError otherwise.
Resumable resumable_run(const std::string& dir) {
  auto index = read_index(std::filesystem::path(dir) / kIndexFile);
  if (auto* e = std::get_if<std::string>(&index)) throw UserError("--resume: " + *e);
  std::vector<std::string> ids, failed;
  for (const auto& c : std::get<RunIndex>(index).cases) {
    ids.push_back(c.id);
    if (c.status == Status::Failed) failed.push_back(c.id);
  }
  return require_resumable_run(dir, ids, failed);
}

// A file of a case the index does not record is what a run killed while
// measuring that case left, or it was put there: only a case still to measure
// (in `plan`, not kept) may have left it; the first other is refused.
void refuse_unplanned(const std::string& dir, const std::vector<CaseLeftover>& leftovers,
                      const std::vector<Case>& plan) {
  for (const auto& l : leftovers)
    if (std::none_of(plan.begin(), plan.end(), [&](const Case& c) { return c.id == l.id; }))
      throw UserError(not_resumable(dir, fmt::format("{}; the plan has no case '{}'", l.error, l.id)));
}

// Removed before the cases are measured again: their files are then only what
// this resumption writes, never a file it did not write listed in the index.
void remove_leftovers(const OutDir& out, const std::vector<CaseLeftover>& leftovers) {
  for (const auto& l : leftovers) remove_in(out.root(), l.path);
}
}  // namespace

int cmd_resume(const ResumeOptions& r) {
  const std::string& dir = r.dir;
  if (auto busy = OutDirLock::in_use_by_other(dir)) throw UserError("--resume: " + *busy);
  const Resumable resumable = resumable_run(dir);
  const std::vector<std::string>& rewritten = resumable.rewritten_cases;
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError("--resume: " + *e);
  const LoadedRun old = std::get<LoadedRun>(std::move(loaded));
  require_same_test_switch(old.environment, dir);
  if (old.index.complete &&
      std::none_of(old.cases.begin(), old.cases.end(),
                   [](const CaseResult& c) { return c.reason.code == ReasonCode::Interrupted; })) {
    refuse_unplanned(dir, resumable.leftovers, {});  // no case is measured again
    say(stdout, "{}: complete, nothing to resume\n", dir);
    return 0;
  }
  if (old.index.merged) throw UserError(fmt::format("--resume: '{}' is a merged run; resume its shards", dir));
  RunOptions o = recorded_run_options(old.index);
  o.out_dir = std::filesystem::absolute(dir).string();
  o.quiet = r.quiet;
  require_affinity(o.affinity);  // the recorded --affinity, on the CPUs this machine has now
  const InputCopies inputs = use_recorded_inputs(old.index, o.out_dir, o);
  const PlannedRun p = make_planned_run(o, inputs);
  refuse_unplanned(dir, resumable.leftovers, p.cases);
  const std::string digest_then = old.index.shard ? old.index.shard->plan_digest : "";
  const std::string digest_now = p.shard ? p.shard->plan_digest : "";
  std::map<std::string, CaseResult> keep;
  for (const auto& c : old.cases) {
    const auto planned = std::find_if(p.cases.begin(), p.cases.end(), [&](const Case& x) { return x.id == c.c.id; });
    if (planned == p.cases.end() || digest_then != digest_now)
      throw UserError(fmt::format("--resume: the plan that '{}' recorded is not the one its command makes now (case "
                                  "'{}'; was the suite file changed or moved?)", dir, c.c.id));
    if (c.reason.code == ReasonCode::Interrupted) continue;
    if (std::find(rewritten.begin(), rewritten.end(), c.c.id) != rewritten.end())
      throw UserError(not_resumable(dir, "cases/" + c.c.id + ".json: sha256 differs from the index"));
    // Kept with the records its case carries in this plan (a user workload's, as its file gave it).
    auto& kept = keep.emplace(c.c.id, c).first->second.c;
    kept.backend_info = planned->backend_info;
    kept.workload_info = planned->workload_info;
  }
  auto reopened = OutDir::reopen(dir);
  if (auto* e = std::get_if<std::string>(&reopened)) throw UserError(*e);
  const OutDir& out = std::get<OutDir>(reopened);
  remove_leftovers(out, resumable.leftovers);
  WorkerSetup setup = worker_setup(o, p.suite);
  setup.out_dir = out.root();
  RunHeader h = resumed_header(old, o, p, keep);
  install_interrupt_handlers();
  Launchers launchers(o.affinity);
  // A run stopped before its probe finished never recorded its interpreter.
  if (old.environment.python_version.empty())
    if (auto code = finish_starting(h, o, p, setup, out, launchers.posix)) return *code;
  prepare_environments(p, o, setup, h, out, launchers.posix);  // from the cache: the same hashes
  if (auto code = stopped_preparing(out, h, p.cases, keep)) return *code;
  announce(o.quiet, p.cases.size() - keep.size(), setup, out, fmt::format(" left of {}", p.cases.size()));
  CaseRunner runner(launchers.get(), setup);
  return run_cases(out, std::move(h), runner, p.cases, std::move(keep), o.quiet, !o.no_interleave,
                   costs_of_cases(p));
}

}  // namespace jitbench
