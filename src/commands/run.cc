// `jitbench run`: suite -> plan -> one CaseRunner per case -> the artifacts,
// rewritten after every case so that an interrupted run keeps its results.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>

#include "artifacts/write_run.h"
#include "commands/commands.h"
#include "config/catalog.h"
#include "env/ceilings.h"
#include "env/counting_tools.h"
#include "env/env_cache.h"
#include "env/environments.h"
#include "plan/shard.h"
#include "results/read.h"
#include "env/doctor.h"
#include "env/host.h"
#include "env/probe.h"
#include "export/json/environment_json.h"
#include "export/json/schema.h"
#include "export/json/noise_json.h"
#include "compare/noise.h"
#include "export/json/json_util.h"
#include "report/format.h"
#include "results/views.h"
#include "run/case_runner.h"
#include "run/replay.h"
#include "run/worker_env.h"
#include "stats/stats.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/json_get.h"
#include "util/say.h"
#include "util/ticker.h"
#include "util/build_info.h"
#include "util/sha256.h"

namespace jitbench {
namespace {

Suite load_suite(const RunOptions& o, Catalog& catalog, const InputCopies& inputs) {
  if (o.suite_file.empty()) return default_suite();
  auto r = load_suite_file(o.suite_file, catalog, inputs);
  if (auto* e = std::get_if<ConfigError>(&r)) throw UserError(e->message);
  return std::get<Suite>(r);
}

// --workload-path with no --suite: the files' own plan (config/suite.h,
// workload_files_suite), named after them; --cases that name a built-in
// workload keep the default suite's blocks for it too.
Suite workload_files_suite_of(const RunOptions& o, const Catalog& catalog) {
  std::vector<std::string> names;
  for (const auto& path : o.workload_paths) {
    const auto stem = std::filesystem::path(path).stem().string();
    if (std::find(names.begin(), names.end(), stem) == names.end()) names.push_back(stem);
  }
  // A file whose record could not be read (said above) has no plan of its own: with --cases its cases are
  // planned as before (--backends), and fail with the worker's reason.
  const bool unread = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
    const auto w = catalog.find_workload(n);
    return !w || !w->record_loaded;
  });
  if (unread && !o.cases.empty()) return default_suite();
  auto r = workload_files_suite(catalog, names, !read_host_facts().gpus.empty());
  if (auto* e = std::get_if<ConfigError>(&r)) throw UserError(e->message);
  Suite s = std::get<Suite>(std::move(r));
  const bool built_in_case = std::any_of(o.cases.begin(), o.cases.end(), [&](const std::string& spec) {
    return std::none_of(names.begin(), names.end(), [&](const std::string& n) { return spec.starts_with(n + "_"); });
  });
  if (built_in_case) {
    s.name = "default";
    for (const auto& blk : default_suite().matrix) s.matrix.push_back(blk);
  }
  return s;
}

// --env and --env-var over the suite's [[environments]]: the command line's
// environments replace the suite's; variables apply to whichever are used.
std::vector<EnvironmentSpec> selected_environments(const Suite& suite, const RunOptions& o) {
  std::vector<EnvironmentSpec> envs;
  for (const auto& text : o.envs) {
    auto r = parse_environment_spec(text);
    if (auto* e = std::get_if<std::string>(&r)) throw UserError(*e);
    envs.push_back(std::get<EnvironmentSpec>(r));
  }
  if (envs.empty()) envs = suite.environments;
  for (const auto& v : o.env_vars)
    if (auto err = apply_environment_variable(envs, v); !err.empty()) throw UserError(err);
  if (auto dup = duplicate_environment(envs); !dup.empty())
    throw UserError(fmt::format("two environments are named '{}': name them (--env NAME:REQ;...)", dup));
  if ((!o.find_links.empty() || o.no_index) && envs.empty())
    throw UserError("--find-links and --no-index are for building environments: give --env too");
  return envs;
}

std::vector<Case> plan_cases(const Catalog& catalog, const Suite& suite, const RunOptions& o,
                             const std::vector<EnvironmentSpec>& envs) {
  Selection sel;
  // Only --env replaces the suite's environments (and with them each block's
  // list); without it the suite's own are planned, each block in those it names.
  if (!o.envs.empty()) sel.environments = envs;
  sel.backends = o.backends;
  sel.cache_policies = o.cache_policies;
  sel.precisions = o.precisions;
  for (const auto& spec : o.cases) {
    auto r = parse_case_spec(spec, catalog);
    if (auto* e = std::get_if<std::string>(&r)) throw UserError(*e);
    for (auto& c : std::get<std::vector<CaseSpec>>(r)) sel.cases.push_back(std::move(c));
  }
  auto plan = make_plan(catalog, suite, sel);
  if (auto* e = std::get_if<std::string>(&plan)) throw UserError(*e);
  return std::get<std::vector<Case>>(plan);
}

// Seconds each case of an earlier run took, all its processes together (--costs).
std::map<std::string, double> measured_costs(const std::string& dir) {
  require_valid_run(dir, "--costs");
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError("--costs: " + *e);
  std::map<std::string, double> out;
  for (const auto& c : std::get<LoadedRun>(loaded).cases) {
    double s = 0;
    for (const auto& r : c.cold) s += r.wall_s;
    for (const auto& r : c.warm) s += r.wall_s;
    if (c.priming) s += c.priming->wall_s;
    if (c.crosscheck) s += c.crosscheck->wall_s;
    // A wall time no machine measured (1e308 s) would make every expected cost infinite.
    if (!std::isfinite(s) || s > 1e9)
      throw UserError(fmt::format("--costs: case '{}' of '{}' records {:g} s of processes, not a time a run took",
                                  c.c.id, dir, s));
    out[c.c.id] = s;
  }
  return out;
}
}  // namespace

namespace {
// A --workload-path file beside --suite whose workload no block of the suite
// names is a mistake, not a silent no-op: the user meant to measure it.
void require_used_workload_files(const RunOptions& o, const Suite& suite) {
  if (o.suite_file.empty()) return;
  for (const auto& path : o.workload_paths) {
    const auto name = std::filesystem::path(path).stem().string();
    if (std::none_of(suite.matrix.begin(), suite.matrix.end(), [&](const MatrixBlock& b) {
          return std::find(b.workloads.begin(), b.workloads.end(), name) != b.workloads.end();
        }))
      throw UserError(fmt::format("--workload-path {}: its workload '{}' is in no block of suite '{}': add it to the "
                                  "suite's workloads, or drop --suite to run the file alone",
                                  path, name, suite.name));
  }
}
}  // namespace

PlannedRun make_planned_run(const RunOptions& o, const InputCopies& inputs) {
  // The catalog of this command: built-ins, then the user's workloads with their records.
  Catalog catalog = Catalog::builtin();
  for (const auto& path : o.workload_paths) {
    auto added = catalog.with_user_workload(inputs.path(path));  // a resumed run's copy
    if (auto* err = std::get_if<std::string>(&added)) throw UserError("--workload-path: " + *err);
    catalog = std::get<Catalog>(std::move(added));
  }
  PlannedRun p;
  p.inputs = inputs;
  p.suite = load_suite(o, catalog, inputs);
  catalog = load_user_workload_records(resolve_python(o.python), std::move(catalog));
  if (o.suite_file.empty() && !o.workload_paths.empty()) p.suite = workload_files_suite_of(o, catalog);
  p.environments = selected_environments(p.suite, o);
  p.full = plan_cases(catalog, p.suite, o, p.environments);
  require_used_workload_files(o, p.suite);
  const int processes = o.cold_runs.value_or(p.suite.cold_runs) + o.warm_runs.value_or(p.suite.warm_runs);
  const int calls = o.warm_iters.value_or(p.suite.warm_iters.value_or(kFixedWarmCalls)) *
                    o.warm_runs.value_or(p.suite.warm_runs);
  const auto measured = o.costs_dir.empty() ? std::map<std::string, double>{} : measured_costs(o.costs_dir);
  p.costs = expected_costs(p.full, measured, processes, calls);
  p.shard_of.assign(p.full.size(), 0);
  if (!o.shard) {
    p.cases = p.full;
    return p;
  }
  const auto [k, n] = *o.shard;
  p.shard_of = assign_case_shards(p.full, p.costs, n);  // a case's environments in one shard
  std::vector<std::string> ids;
  std::size_t known = 0;
  for (std::size_t i = 0; i < p.full.size(); ++i) {
    ids.push_back(p.full[i].id);
    known += measured.count(p.full[i].id);
    if (p.shard_of[i] == k - 1) p.cases.push_back(p.full[i]);
  }
  p.shard = ShardSection{k, n, plan_digest(p.full), ids,
                         o.costs_dir.empty() ? std::string("model (backend and size)")
                                             : fmt::format("measured in {} for {} of {} cases, model for the rest",
                                                           o.costs_dir, known, p.full.size())};
  return p;
}

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

// Where Slurm runs this (a job array task, say): its ids, so a shard says which
// job, task and node made it; {} outside Slurm.
SlurmIds slurm_ids() {
  SlurmIds ids;
  for (const char* k : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_NODELIST",
                        "SLURMD_NODENAME", "SLURM_RESTART_COUNT", "SLURM_CLUSTER_NAME"})
    if (const char* v = std::getenv(k); v && *v) ids[k] = v;
  return ids;
}

// The run's inputs, copied into the out dir and listed in the index: --resume
// measures from these copies, never from whatever the original paths hold later.
std::vector<FileWrite> input_copies(const RunOptions& o, const PlannedRun& p, std::vector<InputCopy>& listed) {
  namespace fs = std::filesystem;
  std::vector<FileWrite> files;
  listed.clear();
  const auto add = [&](const std::string& kind, const fs::path& source, const std::string& rel,
                       const std::string& from = "") {
    std::string text;
    try {  // a replica reads the original's copy; measure, the copy its workload pinned
      text = read_file(from.empty() ? p.inputs.path(source.string()) : from, /*follow_link=*/true);
    } catch (const std::exception& e) {
      throw UserError(fmt::format("cannot copy the {} into the out dir: {}", kind, e.what()));
    }
    listed.push_back({kind, fs::absolute(source).lexically_normal().string(), rel, sha256_hex(text)});
    files.push_back({rel, std::move(text)});
  };
  if (!o.suite_file.empty()) add("suite", o.suite_file, "inputs/suite.toml");
  std::vector<std::string> workloads = p.suite.workload_paths;
  workloads.insert(workloads.end(), o.workload_paths.begin(), o.workload_paths.end());
  for (const auto& w : workloads) {
    const auto source = fs::absolute(w).lexically_normal().string();
    if (std::none_of(listed.begin(), listed.end(), [&](const InputCopy& x) { return x.source == source; }))
      add("workload", w, "inputs/workloads/" + fs::path(w).filename().string());
  }
  for (const auto& k : o.kept_files) {
    if (k.file.empty() || fs::path(k.file).filename() != k.file || k.file[0] == '.')
      throw UserError(fmt::format("cannot keep {} as '{}': not a plain file name", k.source, k.file));
    add("target", k.source, "inputs/targets/" + k.file, k.copy);
  }
  return files;
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

// Every environment of the plan built (or found in the cache) and its
// interpreter probed: environments/env-<name>.json, the index's
// "environments" (how each was built), the summary's Environments section.
// One that cannot be built is recorded as such; its cases warn, the others run.
// A built environment is held by this run until it exits (its lock shared:
// `jitbench envs rm` and `prune` leave it alone) and this run is added to its uses.
// One removed between its build and the hold (envs rm or prune in that gap) is built once more.
EnvironmentBuild build_and_hold(ProcessLauncher& launcher, const EnvironmentSpec& spec, const EnvironmentRequest& req,
                                const OutDir& out, bool quiet) {
  for (int attempt = 0;; ++attempt) {
    auto b = [&] {
      const Ticker ticker(fmt::format("environment {}: building or checking (uv; log {})", spec.name,
                                      req.log_path.string()), quiet);
      return build_environment(launcher, spec, req);
    }();
    const auto hash = string_or(b.record, "hash", "");
    if (!b.ok || hash.empty()) return b;
    const auto why = hold_environment(req.cache_root, hash, spec.name,
                                      std::filesystem::absolute(out.root()).lexically_normal().string());
    if (why.empty()) return b;
    std::error_code ec;
    if (attempt == 0 && !interrupted() && !std::filesystem::exists(req.cache_root / hash / kEnvRecord, ec)) continue;
    b.ok = false;
    b.reason = "environment_unavailable: " + why;
    return b;
  }
}

void prepare_environments(const PlannedRun& p, const RunOptions& o, WorkerSetup& setup, RunHeader& h,
                          const OutDir& out, ProcessLauncher& launcher) {
  if (p.environments.empty()) return;
  const auto root = environment_cache_root();
  if (auto* why = std::get_if<std::string>(&root)) throw UserError(*why);
  std::vector<std::string> find_links;  // absolute: the environment's hash and record hold no relative path
  for (const auto& f : o.find_links) find_links.push_back(std::filesystem::absolute(f).lexically_normal().string());
  EnvironmentRequest req{resolve_python(""), resolve_worker_dir(), std::get<std::filesystem::path>(root), find_links,
                         o.no_index, {}, out.root()};
  std::vector<RecordedEnvironment> listed;
  // Only the environments a planned case (of this shard) runs in.
  std::vector<EnvironmentSpec> used;
  for (const auto& e : p.environments)
    if (std::any_of(p.cases.begin(), p.cases.end(), [&](const Case& c) { return c.env == e.name; })) used.push_back(e);
  for (std::size_t i = 0; i < used.size() && !interrupted(); ++i) {
    const auto& spec = used[i];
    if (!o.quiet)
      say(stderr, "jitbench: environment {} ({} of {}): {}\n", spec.name, i + 1, used.size(),
          fmt::join(spec.requirements, " "));
    req.log_path = out.root() / "logs" / "environments" / (spec.name + ".log");
    auto b = build_and_hold(launcher, spec, req, out, o.quiet);
    if (!b.ok && interrupted())  // a signal, not the environment: said so, and its cases are left unmeasured
      b.reason = fmt::format("environment_unavailable: interrupted (signal {}) while it was built", interrupt_signal());
    EnvironmentRun run{b.ok, b.reason, b.python, spec.variables, fmt::format("environments/env-{}.json", spec.name)};
    if (run.ok) {
      ProbeRequest pr{b.python, resolve_worker_dir(), out.root() / "logs" / "environments" / (spec.name + "-probe.log")};
      pr.log_root = out.root();
      auto probe = probe_worker(launcher, pr);
      if (auto* e = std::get_if<std::string>(&probe)) {
        run = {false, "environment_unavailable: " + *e, "", spec.variables, run.file};
      } else {
        auto vars = compiler_env();
        for (const auto& [k, v] : spec.variables) vars[k] = v;
        WorkerSetup with = setup;  // this environment's workers: its variables set
        with.environments[spec.name] = run;
        const HostFacts host = read_host_facts(manifest_read(with, spec.name));
        auto manifest = environment_json(host, std::get<nlohmann::json>(probe), vars, o.deterministic ? "" : utc_now());
        set_affinity(manifest, o.affinity, host);
        complete_environment_manifest(manifest, h.info.environment.ceilings(), b.record);
        out.write_text(run.file, json_text(manifest));
        h.info.environments.emplace_back(run.file, parse_environment(manifest));
      }
    }
    if (!o.quiet && !run.ok) say(stderr, "jitbench: environment {}: {}\n", spec.name, run.reason);
    listed.push_back({spec.name, spec.requirements, spec.python, spec.variables,
                      run.ok ? std::optional<std::string>(run.file) : std::nullopt, run.ok, run.reason, b.record});
    setup.environments[spec.name] = run;
  }
  h.info.pinned_environments = true;
  h.sections.environments = std::move(listed);
}

// A signal while the environments were built: no case is measured, so that
// --resume builds them again and measures every case left (none is recorded
// as an environment's failure); a resumed run keeps the cases it had (`kept`,
// in the plan's order).
std::optional<int> stopped_preparing(const OutDir& out, const RunHeader& h, const std::vector<Case>& plan = {},
                                     const std::map<std::string, CaseResult>& kept = {}) {
  if (!interrupted()) return std::nullopt;
  std::vector<CaseResult> recorded;
  for (const auto& c : plan)
    if (auto it = kept.find(c.id); it != kept.end()) recorded.push_back(it->second);
  write_stop_index(out, h, recorded, Stopped{"interrupted", fmt::format("signal {}, while building the environments",
                                                                        interrupt_signal())});
  say(stderr, "jitbench: interrupted while building the environments; no case was measured. `jitbench run --resume "
              "{}` builds them again and measures every case left\n", out.root().string());
  return 128 + interrupt_signal();
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

// What the terminal shows while a suite runs.
class Progress {
 public:
  // costs: each case's expected seconds (plan/shard.h's cost model; 0 for a case kept from before).
  Progress(bool quiet, std::vector<double> costs)
      : n_(costs.size()), quiet_(quiet), tty_(isatty(STDERR_FILENO) && !quiet), costs_(std::move(costs)) {
    const char* no_color = std::getenv("NO_COLOR");
    color_ = tty_ && !(no_color && *no_color);
  }
  // case i of N (or cases i .. i + k - 1, measured as one interleaved group: named whole, [3-4/8] 2 cases
  // interleaved: ...), what it is doing, elapsed, and the time left.
  CaseRunner::Progress for_case(std::size_t i, const Case& c) const { return for_group(i, {c}); }
  CaseRunner::Progress for_group(std::size_t i, const std::vector<Case>& cases) const {
    if (!tty_) return {};
    case_start_s_ = seconds_since_start();
    std::vector<std::string> ids;
    for (const auto& c : cases) ids.push_back(c.id);
    const std::string at = ids.size() > 1 ? fmt::format("{}-{}", i + 1, i + ids.size()) : fmt::format("{}", i + 1);
    return [this, i, at, label = group_label(ids)](const std::string& what) {
      const double elapsed = seconds_since_start();
      say(stderr, "\r\033[K[{}/{}] {}: {} · elapsed {} · ~{} left", at, n_, label, what, format_seconds(elapsed),
          format_seconds(std::max(seconds_left(i, elapsed), 1e-3)));
    };
  }
  void done(std::size_t i, const CaseResult& r) const {
    if (tty_) say(stderr, "\r\033[K");
    if (!quiet_) say(stderr, "[{}/{}] {}  {}\n", i + 1, n_, r.c.id, one_line(r));
  }

 private:
  // Status words are coloured on a terminal unless NO_COLOR is set (no-color.org).
  std::string status_word(Status s) const {
    const auto w = std::string(to_string(s));
    if (!color_) return w;
    return fmt::format("\033[{}m{}\033[0m", s == Status::Ok ? "32" : s == Status::Warn ? "33" : "31", w);
  }
  std::string one_line(const CaseResult& r) const {
    if (r.status != Status::Ok)
      return fmt::format("{}: {}{}", status_word(r.status), to_string(r.reason),
                         r.detail.empty() ? "" : " (" + r.detail + ")");
    return fmt::format("{}  cold TTFR {}  warm call {}", status_word(r.status),
                       format_seconds(stats::median(cold_values(r, "ttfr_s"))),
                       format_seconds(stats::median(warm_values(r))));
  }
  double seconds_since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  // The cost model's seconds for the cases from i on, scaled by how the cases
  // before i compared with it (before the first case ends: the model as it is),
  // less what case i has run already.
  double seconds_left(std::size_t i, double elapsed) const {
    double before = 0, from = 0;
    for (std::size_t k = 0; k < costs_.size(); ++k) (k < i ? before : from) += costs_[k];
    const double scale = before > 0 && case_start_s_ > 0 ? case_start_s_ / before : 1.0;
    return from * scale - (elapsed - case_start_s_);
  }
  std::size_t n_;
  bool quiet_, tty_, color_ = false;
  std::vector<double> costs_;
  mutable double case_start_s_ = 0;  // when the case (or group) being measured started
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

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

int final_line(const std::vector<CaseResult>& results, const OutDir& out) {
  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& r : results) (r.status == Status::Ok ? n_ok : r.status == Status::Warn ? n_warn : n_failed)++;
  say(stdout, "{} cases: {} ok, {} warn, {} failed. Summary: {}\n", results.size(), n_ok, n_warn, n_failed,
      (out.root() / "summary.md").string());
  return n_failed > 0 ? 2 : 0;
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

// The expected seconds of each case the run measures (p.cases), from the plan's cost model.
std::vector<double> costs_of_cases(const PlannedRun& p) {
  std::map<std::string, double> by_id;
  for (std::size_t k = 0; k < p.full.size() && k < p.costs.size(); ++k) by_id[p.full[k].id] = p.costs[k];
  std::vector<double> out;
  for (const auto& c : p.cases) out.push_back(by_id.count(c.id) ? by_id[c.id] : 0.0);
  return out;
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

// A development aid: record every worker process for offline replay
// (src/run/replay.h; the golden test's fixtures are made this way).
struct Launchers {
  PosixLauncher posix;
  std::optional<RecordingLauncher> recorder;
  explicit Launchers(const std::vector<int>& cpus) : posix(cpus) {
    if (const char* rec = std::getenv("JITBENCH_RECORD_WORKERS"); rec && *rec) recorder.emplace(posix, rec);
  }
  ProcessLauncher& get() { return recorder ? static_cast<ProcessLauncher&>(*recorder) : posix; }
};

void announce(bool quiet, std::size_t n, const WorkerSetup& setup, const OutDir& out, const std::string& what) {
  if (quiet) return;
  if (const auto& t = setup.target) {
    say(stderr, "jitbench: {} cases{}, cold and warm processes until the 95% interval of each median is within "
                "+-{:g}% ({} to {} each{}), {} to {} calls per warm process -> {}\n", n, what, t->target_pct,
        t->min_runs, t->max_runs, t->max_time_s ? fmt::format(", {:g} s at most", *t->max_time_s) : "",
        setup.warm_calls_at_least(), setup.warm_iters, out.root().string());  // (and the time rule, if calibrated)
    return;
  }
  say(stderr, "jitbench: {} cases{}, {} cold runs + {} warm run{} of {} each -> {}\n", n, what, setup.cold_runs,
      setup.warm_runs, setup.warm_runs == 1 ? "" : "s", warm_calls_text(setup), out.root().string());
}

}  // namespace

void keep_recorded_inputs(const RunIndex& index, RunHeader& h) {
  if (!index.cwd.empty()) h.sections.inputs.cwd = index.cwd;
  h.sections.inputs.inputs = index.inputs;
}

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
  RunOptions o = parse_run_command(old.index.command);
  add_measured_workload(old.index, o);
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

// The recorded command's paths as the run saw them, wherever --resume is run
// from: relative ones against the directory it was started in, the suite and
// the workload files from the copies in the out dir, checked against their
// recorded sha256. Runs recorded before inputs were copied are resumed from
// the original paths (relative to the recorded directory when there is one).
InputCopies use_recorded_inputs(const RunIndex& index, const std::filesystem::path& dir, RunOptions& o) {
  namespace fs = std::filesystem;
  const fs::path cwd = index.cwd.empty() ? fs::current_path() : fs::path(index.cwd);
  const auto anchored = [&](std::string& p) {
    if (!p.empty() && fs::path(p).is_relative()) p = (cwd / p).lexically_normal().string();
  };
  anchored(o.python);
  anchored(o.costs_dir);
  for (auto& f : o.find_links) anchored(f);  // the wheels the environments were built from, where they were
  std::map<std::string, std::string> copies;
  for (const auto& in : index.inputs) {
    const fs::path copy = dir / in.path;
    std::string text;
    try {
      text = read_file(copy);
    } catch (const std::exception& e) {
      throw UserError(fmt::format("--resume: the copy of {} is unreadable: {}", in.source, e.what()));
    }
    if (sha256_hex(text) != in.sha256)
      throw UserError(fmt::format("--resume: {} (the copy of {}) is not the file the run was started with: its sha256 "
                                  "differs from the index", copy.string(), in.source));
    copies[in.source] = copy.string();
  }
  if (index.cwd.empty()) {
    anchored(o.suite_file);
    for (auto& w : o.workload_paths) anchored(w);
  }
  return InputCopies{cwd, std::move(copies)};
}

void require_affinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  HostReadOptions r;
  r.gpus = false;
  if (auto why = affinity_problem(cpus, read_host_facts(r).machine); !why.empty()) throw UserError(why);
}

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

namespace {
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

// A signal while noise's or --remeasure's sides were started or measured.
struct SidesInterrupted {};

// One side of `jitbench noise`: a run of its own (D/a or D/b), started and probed.
struct NoiseSide {
  OutDir out;
  RunHeader h;
  WorkerSetup setup;
  std::vector<CaseResult> results;
};

NoiseSide start_noise_side(const RunOptions& o, const PlannedRun& p, const std::filesystem::path& dir,
                           const std::vector<std::string>& command, ProcessLauncher& launcher) {
  auto prepared = OutDir::prepare(dir);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  NoiseSide side{std::get<OutDir>(prepared), {}, worker_setup(o, p.suite), {}};
  side.setup.out_dir = side.out.root();
  side.h = start_run(o, p, side.setup, side.out, command);
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

void print_noise(const NoiseFloor& floor, const std::filesystem::path& file) {
  say(stdout, "{:<48} {:<22} {:>8} {:>22} {:>14}\n", "case", "metric", "n", "A/A ratio [95% CI]", "detectable");
  for (const auto& m : floor.metrics)
    say(stdout, "{:<48} {:<22} {:>8} {:>22} {:>14}\n", m.case_id, m.metric, fmt::format("{}+{}", m.n_a, m.n_b),
        fmt::format("{:.3f} [{:.3f}-{:.3f}]", m.ratio, m.lo, m.hi),
        m.detectable_pct ? fmt::format(">= {:.1f}%", *m.detectable_pct) : std::string("none"));
  say(stdout, "Noise floor: {}\n", file.string());
}

// Both sides measured: the floor into D/noise.json, then each side's last line.
int finish_noise(const NoiseOptions& n, NoiseFloor& floor, const std::filesystem::path& dir, NoiseSide& a,
                 NoiseSide& b) {
  floor.metrics = compare::noise_metrics(a.results, b.results, n.alpha);
  floor.finished_at = n.run.deterministic ? "" : utc_now();
  try {
    write_file_atomic(dir / "noise.json", noise_json(floor));
  } catch (const std::exception& e) {
    throw UserError(fmt::format("cannot write '{}': {}", (dir / "noise.json").string(), e.what()));
  }
  if (!n.run.quiet) print_noise(floor, dir / "noise.json");
  const int rc_a = final_line(a.results, a.out);  // side A's line, then side B's
  const int rc_b = final_line(b.results, b.out);
  return std::max(rc_a, rc_b);
}
}  // namespace

int cmd_noise(const NoiseOptions& n, const std::vector<std::string>& command) {
  namespace fs = std::filesystem;
  require_utf8_cwd();
  const fs::path dir = n.run.out_dir;
  make_empty_dir(dir, "--out-dir", "a/, b/ and noise.json");
  const PlannedRun p = make_planned_run(n.run, {});
  install_interrupt_handlers();
  Launchers launchers(n.run.affinity);
  NoiseFloor floor;
  floor.alpha = n.alpha;
  floor.run_a = "a";
  floor.run_b = "b";
  floor.command = command;
  floor.started_at = n.run.deterministic ? "" : utc_now();
  const auto stopped = [&] {
    say(stderr, "jitbench noise: interrupted; no noise.json was written, and a noise run cannot be resumed (its two "
                "sides are measured together): run `jitbench noise` again into a new directory (what was measured "
                "is in {})\n", dir.string());
    return 128 + interrupt_signal();
  };
  std::vector<std::pair<Case, Case>> pairs;
  for (const auto& c : p.cases) pairs.emplace_back(c, c);
  try {
    NoiseSide a = start_noise_side(n.run, p, dir / "a", command, launchers.posix);
    NoiseSide b = start_noise_side(n.run, p, dir / "b", command, launchers.posix);
    announce(n.run.quiet, p.cases.size(), a.setup, a.out, " (twice: A/A, interleaved)");
    if (!measure_sides(pairs, !n.run.no_interleave, n.run.quiet, a, b, {"../a", "../b"}, launchers.get()))
      return stopped();
    return finish_noise(n, floor, dir, a, b);
  } catch (const SidesInterrupted&) {
    return stopped();
  }
}

namespace {
// A recorded run's command, ready to measure again here (as --resume reads it).
struct RecordedRun {
  RunOptions o;
  PlannedRun p;
  std::vector<std::string> command;
};
RecordedRun recorded_run(const std::string& dir, const std::filesystem::path& out, const char* label) {
  auto index = read_index(std::filesystem::path(dir) / kIndexFile);
  if (auto* e = std::get_if<std::string>(&index)) throw UserError(fmt::format("--remeasure: {}: {}", label, *e));
  const RunIndex& x = std::get<RunIndex>(index);
  if (x.merged) throw UserError(fmt::format("--remeasure: {} '{}' is a merged run: give its shards' runs", label, dir));
  RecordedRun r;
  r.o = parse_run_command(x.command);
  add_measured_workload(x, r.o);
  const InputCopies inputs = use_recorded_inputs(x, std::filesystem::absolute(dir), r.o);
  r.o.out_dir = out.string();
  r.o.quiet = true;
  r.o.shard.reset();  // the cases both runs measured, whichever shard they were in
  r.p = make_planned_run(r.o, inputs);
  r.command = x.command;
  return r;
}
}  // namespace

std::optional<std::pair<std::string, std::string>> remeasure_side_by_side(const std::string& base,
                                                                          const std::string& next,
                                                                          const std::string& out_dir, bool quiet,
                                                                          const std::vector<std::string>& only) {
  namespace fs = std::filesystem;
  require_utf8_cwd();
  const fs::path dir = out_dir;
  make_empty_dir(dir, "--remeasure", "base/ and new/");
  RecordedRun a = recorded_run(base, dir / "base", "BASE"), b = recorded_run(next, dir / "new", "NEW");
  // The cases both measured, paired as compare pairs them (by id, or by id without its environment).
  std::vector<std::pair<Case, Case>> pairs;
  const auto key = [&](const std::string& id, bool strip) { return strip ? without_environment(id) : id; };
  const bool shared = std::any_of(a.p.cases.begin(), a.p.cases.end(), [&](const Case& c) {
    return std::any_of(b.p.cases.begin(), b.p.cases.end(), [&](const Case& d) { return d.id == c.id; });
  });
  // As compare pairs them: by id without the environment only where that is one to one on each side.
  const auto one_to_one = [&](const std::vector<Case>& cs) {
    std::set<std::string> keys;
    for (const auto& c : cs) keys.insert(without_environment(c.id));
    return keys.size() == cs.size();
  };
  const bool strip = !shared && one_to_one(a.p.cases) && one_to_one(b.p.cases);
  for (const auto& ca : a.p.cases)
    for (const auto& cb : b.p.cases)
      if (key(ca.id, strip) == key(cb.id, strip) &&
          (only.empty() || std::find(only.begin(), only.end(), ca.id) != only.end()))
        pairs.emplace_back(ca, cb);
  if (pairs.empty()) throw UserError("--remeasure: BASE and NEW planned no case in common: nothing to measure side by side");
  install_interrupt_handlers();
  Launchers launchers(a.o.affinity == b.o.affinity ? a.o.affinity : std::vector<int>{});  // both runs' pinning, or none
  try {
    NoiseSide sa = start_noise_side(a.o, a.p, dir / "base", a.command, launchers.posix);
    NoiseSide sb = start_noise_side(b.o, b.p, dir / "new", b.command, launchers.posix);
    if (!quiet) say(stderr, "jitbench compare --remeasure: {} case(s) of BASE and NEW again, interleaved -> {}\n",
                    pairs.size(), dir.string());
    if (measure_sides(pairs, true, quiet, sa, sb, {"../base", "../new"}, launchers.get()))
      return std::pair{(dir / "base").string(), (dir / "new").string()};
  } catch (const SidesInterrupted&) {
  }
  say(stderr, "jitbench compare: --remeasure interrupted; nothing was compared, and a re-measurement cannot be "
              "resumed (its two sides are measured together): run the same compare again with --remeasure and a new "
              "directory (what was measured is in {})\n", dir.string());
  return std::nullopt;
}

}  // namespace jitbench
