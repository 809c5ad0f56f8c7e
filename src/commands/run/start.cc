// A run started: its worker setup, its out dir's first index, the probe and
// the ceilings that complete the environment manifest.
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <thread>

#include "cli/recorded_options.h"
#include "commands/run/run.h"
#include "config/catalog.h"
#include "env/ceilings.h"
#include "env/counting_tools.h"
#include "env/doctor.h"
#include "env/host.h"
#include "env/probe.h"
#include "export/json/environment_json.h"
#include "export/json/json_util.h"
#include "run/worker_env.h"
#include "util/build_info.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace {
// --target-ci, or the suite's target_ci unless a fixed count on the command
// line (or --deterministic) overrides it; nullopt: fixed counts.
std::optional<stats::StoppingRule> sampling_rule(const RunOptions& o, const Suite& suite) {
  const bool fixed_asked = o.cold_runs || o.warm_runs || o.deterministic;
  const auto pct = o.target_ci_pct ? o.target_ci_pct : fixed_asked ? std::nullopt : suite.target_ci_pct;
  if (!pct) return std::nullopt;
  stats::StoppingRule rule{*pct, o.min_runs.value_or(suite.min_runs), o.max_runs.value_or(suite.max_runs),
                           o.max_time_s ? o.max_time_s : suite.max_time_s};
  if (rule.max_runs < rule.min_runs)
    throw UserError(fmt::format("--max-runs {} is below the {} runs at least (--min-runs or the suite's min_runs)",
                                rule.max_runs, rule.min_runs));
  return rule;
}

// --count instructions (or the suite's count key): the source and tool found
// on this machine, or one line saying what is missing (exit 2).
CountingSetup counting_setup(const RunOptions& o, const Suite& suite) {
  if (!o.count && !suite.count) {
    if (o.count_runs || o.jobs)
      throw UserError("--count-runs and --jobs are --count's: add --count instructions (or the suite's count key)");
    return {};
  }
  const unsigned cores = std::thread::hardware_concurrency();
  CountingRequest req{o.count ? o.count_source : suite.count_source, o.count_runs.value_or(suite.count_runs),
                      o.jobs.value_or(cores > 0 ? static_cast<int>(cores) : 1), resolve_count_library()};
  auto found = resolve_counting(req);
  if (auto* e = std::get_if<std::string>(&found)) throw UserError(*e);
  auto setup = std::get<CountingSetup>(std::move(found));
  if (!setup.fake_pmu.empty())
    say(stderr, "jitbench: JITBENCH_TEST_FAKE_PMU=1 is set: the 'hardware' counts are a test's fake (thread CPU time "
                "in ns), not instructions\n");
  return setup;
}

// The machine's ceilings per device: the CPU's when asked or when a native
// case is planned, the GPU's when asked or when a native_cuda case is.
DeviceCeilings run_ceilings(const RunOptions& o, const std::vector<Case>& plan, const WorkerSetup& setup,
                            const OutDir& out, ProcessLauncher& launcher) {
  DeviceCeilings all;
  for (const auto kind : {WorkerKind::Native, WorkerKind::NativeCuda}) {
    const bool cuda = kind == WorkerKind::NativeCuda;
    const char* device = cuda ? "gpu" : "cpu";
    const bool planned = std::any_of(plan.begin(), plan.end(), [&](const Case& c) { return c.worker() == kind; });
    if (o.ceilings == CeilingsMode::Off || (o.ceilings == CeilingsMode::Auto && !planned)) {
      const auto* floor = Catalog::builtin().floor_of(device);
      all.of(device) = ceilings_not_measured(o.ceilings == CeilingsMode::Off
                                              ? "--ceilings off"
                                              : fmt::format("no {} case planned (--ceilings on measures anyway)",
                                                            floor ? floor->name : device));
      continue;
    }
    CeilingsRequest req;
    req.worker = cuda ? setup.native_cuda_worker : setup.native_worker;
    if (!cuda && !setup.native_blas.empty()) req.env["JITBENCH_NATIVE_BLAS"] = setup.native_blas;
    req.log_path = out.root() / "logs" / fmt::format("ceilings-{}.log", device);
    req.log_root = out.root();
    all.of(device) = measure_ceilings(launcher, req);
  }
  return all;
}

// The probe and the ceilings complete the header's environment manifest.
void probe_environment(RunHeader& h, const RunOptions& o, const std::vector<Case>& plan, const WorkerSetup& setup,
                       const OutDir& out, ProcessLauncher& launcher) {
  ProbeRequest req{setup.python, resolve_worker_dir(), out.root() / "logs" / "probe.log"};
  req.log_root = out.root();
  auto probe = probe_worker(launcher, req);
  if (auto* e = std::get_if<std::string>(&probe)) throw UserError(*e);
  const HostFacts host = read_host_facts(manifest_read(setup, ""));
  auto manifest = environment_json(host, std::get<nlohmann::json>(probe), compiler_env(), o.deterministic ? "" : utc_now());
  set_affinity(manifest, o.affinity, host);
  set_ceilings(manifest, run_ceilings(o, plan, setup, out, launcher));
  h.info.environment = parse_environment(manifest);
}
}  // namespace

WorkerSetup worker_setup(const RunOptions& o, const Suite& suite) {
  WorkerSetup setup;
  setup.python = resolve_python(o.python);
  setup.worker_dir = resolve_worker_dir();
  setup.native_worker = resolve_native_worker(WorkerKind::Native);
  setup.native_cuda_worker = resolve_native_worker(WorkerKind::NativeCuda);
  setup.native_blas = resolve_native_blas(setup.python);
  setup.cold_runs = o.cold_runs.value_or(suite.cold_runs);
  // A count given (--warm-iters, the suite's warm_iters) wins; else the calls are calibrated by time.
  if (const auto fixed = o.warm_iters ? o.warm_iters : suite.warm_iters) {
    setup.warm_iters = *fixed;
  } else {
    setup.calibration = WarmCalibration{};
    setup.warm_iters = setup.calibration->max_calls;
  }
  setup.warm_runs = o.warm_runs.value_or(suite.warm_runs);
  setup.timeout_s = o.timeout_s.value_or(suite.timeout_s);
  setup.deterministic = o.deterministic;
  setup.target = sampling_rule(o, suite);
  if (o.anatomy_runs && !o.anatomy && !suite.anatomy)
    throw UserError("--anatomy-runs counts the processes of --anatomy: add --anatomy (or the suite's anatomy = true)");
  if (o.anatomy || suite.anatomy) setup.anatomy_runs = o.anatomy_runs.value_or(suite.anatomy_runs);
  setup.counting = counting_setup(o, suite);
  return setup;
}

// Where Slurm runs this (a job array task, say): its ids, so a shard says which
// job, task and node made it; {} outside Slurm.
SlurmIds slurm_ids() {
  SlurmIds ids;
  for (const char* k : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_NODELIST",
                        "SLURMD_NODENAME", "SLURM_RESTART_COUNT", "SLURM_CLUSTER_NAME"})
    if (const char* v = std::getenv(k); v && *v) ids[k] = v;
  return ids;
}

// From its first instant the out dir is a run: the inputs, an environment
// manifest of the host (the interpreter not yet probed) and an index that says
// the run is starting, written before any process is started. A signal, a
// failed probe or a kill during the probe leaves a directory that validate,
// a new run elsewhere and --resume all understand.
RunHeader start_run(const RunOptions& o, const PlannedRun& p, const WorkerSetup& setup, const OutDir& out,
                    const std::vector<std::string>& command) {
  RunHeader h;
  h.deterministic = o.deterministic;
  h.started_at = o.deterministic ? "" : utc_now();
  h.argv = command;
  h.info.suite_name = p.suite.name;
  h.info.suite_source = p.suite.source;
  for (const auto& a : h.argv) h.info.command += (h.info.command.empty() ? "" : " ") + a;
  h.info.n_planned = p.cases.size();
  h.sections.shard = p.shard;
  h.sections.inputs.cwd = std::filesystem::current_path().string();
  auto files = input_copies(o, p, h.sections.inputs.inputs);
  if (auto slurm = slurm_ids(); !slurm.empty()) h.sections.slurm = slurm;
  h.sections.jitbench_git = this_build();
  if (!o.machine.empty()) h.sections.machine = MachineLabel{o.machine};
  h.sections.options = recorded_options(o);  // what --resume and replicate measure again from
  const HostFacts host = read_host_facts();
  auto manifest = unprobed_environment_json(host, setup.python, compiler_env(), o.deterministic ? "" : utc_now());
  set_affinity(manifest, o.affinity, host);
  h.info.environment = parse_environment(manifest);
  files.push_back({"environment.json", json_text(manifest)});
  const Stopped starting{"starting", "the run stopped while starting: probing the interpreter, measuring ceilings"};
  try {
    write_run_artifacts(out, h, {}, false, &starting, files);
  } catch (const WriteError&) {
    // Nothing half-written stays: the out dir is left as it was (empty, locked),
    // so the same command can be run into it again.
    try {
      empty_dir_in(out.root(), ".", {kLockFile});
    } catch (const WriteError&) {
      // what cannot be removed stays; the first error is the one to report
    }
    throw;
  }
  return h;
}

// How the manifest's host facts are read: the CPUs' busy and steal time
// sampled for a moment, as `jitbench doctor` does (env/doctor.h), and the
// thread settings from the environment the workers of `env` (a pinned
// environment's name, "" for the run's own interpreter) start with.
HostReadOptions manifest_read(const WorkerSetup& setup, const std::string& env) {
  HostReadOptions r;
  r.sample_ms = 200;
  Case c;
  c.env = env;
  r.env = worker_environment(setup, c);
  return r;
}

// Starting ends in one of three ways: probed (the run goes on), interrupted
// (128 + signal) or a failed probe (the UserError goes on up); the index says which.
std::optional<int> finish_starting(RunHeader& h, const RunOptions& o, const PlannedRun& p, const WorkerSetup& setup,
                                   const OutDir& out, ProcessLauncher& launcher) {
  try {
    probe_environment(h, o, p.cases, setup, out, launcher);
  } catch (const UserError& e) {
    if (!interrupted()) {
      write_stop_index(out, h, {}, Stopped{"probe_failed", e.what()});
      throw;
    }
  }
  if (!interrupted()) return std::nullopt;
  write_stop_index(out, h, {}, Stopped{"interrupted", fmt::format("signal {}, while starting", interrupt_signal())});
  say(stderr, "jitbench: interrupted while starting; nothing was measured. `jitbench run --resume {}` starts it "
              "again\n", out.root().string());
  return 128 + interrupt_signal();
}

void require_affinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  HostReadOptions r;
  r.gpus = false;
  if (auto why = affinity_problem(cpus, read_host_facts(r).machine); !why.empty()) throw UserError(why);
}

}  // namespace jitbench
