#include "run/case_runner.h"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <memory>
#include <utility>

#include "run/cache_dir.h"
#include "run/cache_watch.h"
#include "run/classify.h"
#include "run/worker_env.h"
#include "results/views.h"
#include "stats/sequential.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// A cache claim that failed, or an interpreted kernel, is worth reporting on
// every run, not a reason to stop.
bool worth_continuing(const RunRecord& r) {
  return r.status == Status::Ok || r.reason.is_cache_claim() || r.reason.code == ReasonCode::InterpreterOnly;
}

// A run that could not start because its cache directory could not be prepared.
RunRecord not_started(RunMode mode, int index, const std::string& why) {
  RunRecord r;
  r.mode = mode;
  r.index = index;
  r.reason = {ReasonCode::WorkerFailed, ""};
  r.detail = why;
  return r;
}

// A case whose environment could not be built: nothing to start.
RunRecord environment_unavailable(const std::string& reason) {
  RunRecord r;
  r.status = Status::Warn;
  r.reason = parse_reason(reason).value_or(Reason{ReasonCode::EnvironmentUnavailable, reason});
  r.detail = "the case's environment could not be built; the other environments' cases ran";
  return r;
}

// native_cuda where no CUDA toolkit was found at build time: nothing to start.
RunRecord cuda_worker_not_built(RunMode mode, int index, const fs::path& exe) {
  RunRecord r;
  r.mode = mode;
  r.index = index;
  r.status = Status::Warn;
  r.reason = {ReasonCode::MissingDependency, "cuda toolkit"};
  r.detail = fmt::format("{} was not built: it needs the CUDA toolkit (nvcc) at build time, and scripts/setup.sh "
                         "builds it only where nvidia-smi lists a GPU (JITBENCH_WITH_CUDA=1 scripts/setup.sh builds "
                         "it anyway)", exe.string());
  return r;
}

std::string log_name(RunMode mode, int index) {
  if (mode == RunMode::Warm) return fmt::format("warm-{}.log", index);
  if (mode == RunMode::Aot) return "crosscheck.log";
  if (mode == RunMode::Anatomy) return fmt::format("anatomy-{}.log", index);
  if (mode == RunMode::Count) return fmt::format("count-{}.log", index);
  return index < 0 ? "priming.log" : fmt::format("cold-{}.log", index);
}
}  // namespace

namespace {
// The first thing under dir that a profiler session writes: a plugins/profile
// directory, an *.xplane.pb, or the anatomy collector's jitbench-anatomy-*.
std::optional<fs::path> profiler_output_in(const fs::path& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    const auto& p = it->path();
    const auto name = p.filename().string();
    if (name.rfind("jitbench-anatomy-", 0) == 0 || name.ends_with(".xplane.pb") ||
        (name == "profile" && p.parent_path().filename() == "plugins"))
      return fs::relative(p, dir, ec);
  }
  return std::nullopt;
}
}  // namespace

WarmCallsAsked warm_calls_asked(const WorkerSetup& s, WorkerKind kind) {
  if (kind != WorkerKind::Python)  // a native floor knows neither rule: a fixed count
    return {s.calibration ? kFixedWarmCalls : s.warm_iters, 0, std::nullopt, std::nullopt};
  WarmCallsAsked warm{s.warm_iters, 0, std::nullopt, std::nullopt};
  if (s.target) warm.target_pct = s.target->target_pct;
  if (s.calibration) warm.min_time_s = s.calibration->min_time_s;
  if (warm.target_pct || warm.min_time_s) warm.min = s.warm_calls_at_least();
  return warm;
}

std::string warm_calls_text(const WorkerSetup& s) {
  const auto w = warm_calls_asked(s, WorkerKind::Python);
  if (!w.target_pct && !w.min_time_s) return fmt::format("{} calls", w.max);
  return fmt::format("{} to {} calls{}", w.min, w.max,
                     w.min_time_s ? fmt::format(" (at least {:g} s of them)", *w.min_time_s) : "");
}

double count_timeout_s(const WorkerSetup& s) {
  return s.timeout_s * (s.counting.source == kCountSourceValgrind ? kValgrindSlowdown : 1.0);
}

std::vector<std::string> worker_argv(const WorkerSetup& s, const Case& c, RunMode mode, const CaseShared* shared) {
  const WorkerKind kind = c.worker();
  std::vector<std::string> argv;
  if (kind != WorkerKind::Python) {
    argv = {(kind == WorkerKind::Native ? s.native_worker : s.native_cuda_worker).string(), "run"};
  } else {
    argv = {c.env.empty() ? s.python : s.environments.at(c.env).python, "-m", "jitbench_worker", "run"};
  }
  if (const auto path = c.workload_path(); !path.empty()) argv.insert(argv.end(), {"--workload-path", path});
  const WarmCallsAsked warm = warm_calls_asked(s, kind);
  argv.insert(argv.end(), {"--fd", std::to_string(kResultFd), "--mode", std::string(to_string(mode)), "--backend",
                           c.backend, "--workload", c.workload, "--n", std::to_string(c.n), "--dtype", c.dtype,
                           "--warm-iters", std::to_string(warm.max), "--seed", std::to_string(s.seed),
                           "--cache-policy", std::string(to_string(c.cache_policy)), "--precision",
                           std::string(to_string(c.precision))});
  // --target-ci, and calls calibrated by time: the Python worker ends its warm
  // calls by the same rules (the native floors make a fixed count).
  if (warm.target_pct || warm.min_time_s) argv.insert(argv.end(), {"--warm-min-iters", std::to_string(warm.min)});
  if (warm.target_pct) argv.insert(argv.end(), {"--warm-target-ci", fmt::format("{:g}", *warm.target_pct)});
  if (warm.min_time_s) argv.insert(argv.end(), {"--warm-min-time", fmt::format("{:g}", *warm.min_time_s)});
  if (shared && kind == WorkerKind::Python) {
    // The file itself comes as a descriptor (kSharedFd); the path only names it in messages.
    argv.insert(argv.end(), {"--case-shared", shared->path.string(), "--case-shared-fd", std::to_string(kSharedFd)});
    if (!shared->sha256.empty()) argv.insert(argv.end(), {"--case-shared-sha256", shared->sha256});
  }
  return argv;
}

void CaseRunner::open_shared(const Case& c) {
  if (c.worker() != WorkerKind::Python) return;
  // 0700: only this user's processes; through the door, so a link planted at
  // references/ stops the run instead of being followed (util/fs.h).
  make_dir_in(setup_.out_dir, kReferencesDir, 0700);
  const std::string rel = shared_reference_path(c.id);
  remove_in(setup_.out_dir, rel);  // an earlier run's (run --resume): derived from the inputs, made again
  shared_[c.id] = CaseShared{setup_.out_dir / rel, ""};
}

namespace {
// The file a process that makes the case's reference writes into: a temporary
// beside it (the index never lists a dot-name ending in .tmp), renamed into
// place only once jitbench has read it back.
std::string shared_staging_path(const std::string& case_id) {
  return std::string(kReferencesDir) + "/." + case_id + ".pickle.tmp";
}
}  // namespace

SharedHandle CaseRunner::shared_for_process(const Case& c) const {
  const auto it = shared_.find(c.id);
  if (it == shared_.end()) return {};
  // The worker gets a descriptor, never a path to write to: the file recorded
  // (read-only), or a fresh staging file while none is.
  if (!it->second.sha256.empty()) return {open_read_in(setup_.out_dir, shared_reference_path(c.id)), false};
  return {open_file_in(setup_.out_dir, shared_staging_path(c.id)), true};
}

// The hash is recorded only when the file jitbench reads back hashes to what
// the writer reported for the exact bytes it wrote: a file replaced between
// the write and this read is never trusted (no hash: every later process
// refuses it in one line, so the case fails instead of verifying against it).
void CaseRunner::note_shared(const Case& c, const RunRecord& r, SharedHandle& handle) {
  if (handle.fd >= 0) ::close(handle.fd);
  handle.fd = -1;
  const auto it = shared_.find(c.id);
  if (it == shared_.end() || !handle.staging) return;
  const std::string staging = shared_staging_path(c.id);
  const auto& raw = r.worker.raw;
  const bool reported = raw.contains("case_shared") && raw["case_shared"].is_object() &&
                        raw["case_shared"].contains("sha256") && raw["case_shared"]["sha256"].is_string();
  if (reported && sha256_hex(read_file_in(setup_.out_dir, staging)) == raw["case_shared"]["sha256"].get<std::string>()) {
    rename_in(setup_.out_dir, staging, shared_reference_path(c.id));
    it->second.sha256 = raw["case_shared"]["sha256"].get<std::string>();
    return;
  }
  remove_in(setup_.out_dir, staging);
}

RunRecord CaseRunner::one_run(const Case& c, RunMode mode, int index, const fs::path& cache_dir,
                              const std::optional<fs::path>& tmpdir) {
  SpawnSpec spec;
  const WorkerKind kind = c.worker();
  if (kind == WorkerKind::NativeCuda && ::access(setup_.native_cuda_worker.c_str(), X_OK) != 0)
    return cuda_worker_not_built(mode, index, setup_.native_cuda_worker);
  const auto shared = shared_.find(c.id);
  spec.argv = worker_argv(setup_, c, mode, shared == shared_.end() ? nullptr : &shared->second);
  SharedHandle handle = shared_for_process(c);
  spec.shared_fd = handle.fd;
  const WarmCallsAsked warm = warm_calls_asked(setup_, kind);
  auto env = worker_env(setup_, c, cache_dir);
  spec.env_set = std::move(env.set);
  spec.env_unset = std::move(env.unset);
  // Every Python process writes its temporary files (a framework's, by path)
  // into a directory of jitbench's own: the one given, else one for it alone.
  std::optional<PrivateDir> own_tmp;
  if (!tmpdir && kind == WorkerKind::Python) own_tmp.emplace("jitbench-run");
  if (tmpdir || own_tmp) spec.env_set["TMPDIR"] = (tmpdir ? *tmpdir : own_tmp->path()).string();
  const auto log_rel = fs::path("logs") / c.id / log_name(mode, index);
  spec.log_path = setup_.out_dir / log_rel;
  spec.log_root = setup_.out_dir;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(setup_.timeout_s * 1000));
  spec.sample_machine = true;
  RunRequest req{mode, std::max(index, 0), setup_.timeout_s, warm, c.dtype, c.precision, c.gpu};
  CacheWatch watch(cache_dir);  // before the spawn: the kernel queues what the worker does
  ProcessResult p;
  try {
    p = launcher_.launch(spec);
  } catch (...) {
    if (handle.fd >= 0) ::close(handle.fd);
    throw;
  }
  RunRecord r = classify_run(p, req);
  r.cache_seen = watch.finish();
  r.cache_seen.recorded = true;
  r.log = log_rel.string();
  note_shared(c, r, handle);
  return r;
}

// warm_cache: the cache is emptied once and filled by an unmeasured priming run.
bool CaseRunner::prime(const Case& c, CaseResult& res, const fs::path& cache_dir, const Progress& progress) {
  if (progress) progress("priming the compile cache");
  if (auto err = empty_owned_cache_dir(cache_dir, setup_.out_dir)) {
    res.cold.push_back(not_started(RunMode::Cold, 0, *err));
    return false;
  }
  res.priming = one_run(c, RunMode::Cold, -1, cache_dir);
  // A priming run that cannot run tells why the case cannot either.
  if (res.priming->status != Status::Ok) res.cold.push_back(*res.priming);
  return res.priming->status == Status::Ok;
}

// One measured cold or warm process: the cache emptied first unless the
// policy keeps it warm (then checked to be still the directory jitbench made),
// then the run and the cache claims it must back.
RunRecord CaseRunner::measured_run(const Case& c, RunMode mode, int index, const fs::path& cache_dir) {
  const bool keep_cache = c.cache_policy == CachePolicy::WarmCache;
  if (auto err = keep_cache ? owned_cache_dir_problem(cache_dir, setup_.out_dir)
                            : empty_owned_cache_dir(cache_dir, setup_.out_dir))
    return not_started(mode, index, *err);
  // A Python process gets a TMPDIR of jitbench's own (mode 0700, removed after
  // it): the frameworks write there by path. Under --anatomy, the profiler's
  // output found there (where the anatomy's collector puts it) means the run
  // was profiled, whatever it says.
  std::optional<PrivateDir> tmp;
  if (c.worker() == WorkerKind::Python) tmp.emplace("jitbench-run");
  RunRecord r = one_run(c, mode, index, cache_dir, tmp ? std::optional<fs::path>(tmp->path()) : std::nullopt);
  if (tmp && setup_.anatomy_runs > 0) {
    if (auto found = profiler_output_in(tmp->path()); found && r.status != Status::Failed) {
      r.status = Status::Failed;
      r.reason = {ReasonCode::ProtocolViolation, "profiler output in a measured run"};
      r.detail = fmt::format("a measured {} process left profiler output in the TMPDIR jitbench gave it ({}): it ran "
                             "the anatomy's profiler, which only mode anatomy may (docs/anatomy.md)",
                             to_string(mode), found->string());
    }
  }
  judge_cache_claims(r, c.cache_policy, c.writes_cache_by_default);
  return r;
}

std::string CaseRunner::stop_before(int i, int fixed, const std::vector<double>& values, double spent_s) const {
  if (interrupted()) return "interrupted";
  if (!setup_.target) return i >= fixed ? "fixed_count" : "";
  const auto why = stats::should_stop(*setup_.target, values, spent_s);
  return why == stats::StopReason::Continue ? "" : std::string(stats::to_string(why));
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "cold run 3/5", or under --target-ci the interval so far and how many runs are left at most.
std::string run_label(const char* what, int i, int fixed, const std::optional<stats::StoppingRule>& target,
                      const std::vector<double>& values) {
  if (!target) return fmt::format("{} {}/{}", what, i + 1, fixed);
  const auto width = stats::half_width_pct(values, stats::kReportConfidence);
  return fmt::format("{} {} · interval {} (target ±{:g}%) · at most {} more", what, i + 1,
                     width ? fmt::format("±{:.1f}%", *width) : std::string("not yet"), target->target_pct,
                     target->max_runs - i);
}
}  // namespace

// The JIT's event-based phases, checked against its ahead-of-time path in a
// process of its own (catalog: aot_crosscheck).
void CaseRunner::crosscheck(const Case& c, CaseResult& res, const fs::path& cache_dir, const Progress& progress) {
  if (interrupted() || c.cache_policy != CachePolicy::ColdCache || !c.aot_crosscheck) return;
  if (progress) progress("cross-checking the phases (ahead-of-time compile)");
  if (!empty_owned_cache_dir(cache_dir, setup_.out_dir)) res.crosscheck = one_run(c, RunMode::Aot, 0, cache_dir);
}

// run --anatomy: the first call broken down by the framework's own
// instrumentation, in processes of their own (mode anatomy), each with the
// cache emptied like a cold run's; the measured runs never carry it.
bool CaseRunner::anatomy_applies(const Case& c, CaseResult& res) const {
  if (setup_.anatomy_runs <= 0 || !c.jit || c.cache_policy != CachePolicy::ColdCache ||
      c.worker() != WorkerKind::Python)
    return false;
  res.anatomy_runs = setup_.anatomy_runs;
  return true;
}

bool CaseRunner::anatomy_run(const Case& c, CaseResult& res, const fs::path& cache_dir, const Progress& progress,
                             int i) {
  if (i >= setup_.anatomy_runs || interrupted()) return false;
  if (progress) progress(fmt::format("compile anatomy {}/{} (profiler on, not measured)", i + 1, setup_.anatomy_runs));
  RunRecord r = measured_run(c, RunMode::Anatomy, i, cache_dir);
  const bool go_on = r.status == Status::Ok;
  res.anatomy.push_back(std::move(r));
  return go_on && i + 1 < setup_.anatomy_runs;
}

CountingSetup CaseRunner::counting() const {
  CountingSetup k = setup_.counting;
  k.calls = std::clamp(setup_.warm_iters, 1, k.calls);
  return k;
}

namespace {
// The case's backend compiles what the thread count says: counted with its pools as timed (counting_env).
bool counts_pools_as_timed(const Case& c) { return c.backend_info && c.backend_info->compile_reads_threads; }
}  // namespace

SpawnSpec CaseRunner::count_spec(const CountingSetup& k, const Case& c, int index, const fs::path& cache_dir,
                                 const fs::path& dump_dir) const {
  SpawnSpec spec;
  // The recorded reference, read-only by descriptor as the timed runs read it (the caller closes it); while
  // none is recorded, the counting process computes its own and writes nothing.
  const auto shared = shared_.find(c.id);
  const bool recorded = shared != shared_.end() && !shared->second.sha256.empty();
  spec.argv = counting_argv(k, worker_argv(setup_, c, RunMode::Count, recorded ? &shared->second : nullptr), dump_dir);
  auto env = worker_env(setup_, c, cache_dir);  // threads and caches as in the timed runs
  spec.env_set = std::move(env.set);
  spec.env_unset = std::move(env.unset);
  for (const auto& [key, v] : counting_env(k, counts_pools_as_timed(c))) spec.env_set[key] = v;
  const auto log_rel = fs::path("logs") / c.id / log_name(RunMode::Count, index);
  spec.log_path = setup_.out_dir / log_rel;
  spec.log_root = setup_.out_dir;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(count_timeout_s(setup_) * 1000));
  if (recorded) spec.shared_fd = open_read_in(setup_.out_dir, shared_reference_path(c.id));  // last: nothing throws after
  return spec;
}

namespace {
// Spawn specs whose shared-reference descriptors (shared_fd) are closed when
// they go out of scope, however that happens.
struct SpecsClosingShared {
  std::vector<SpawnSpec> specs;
  SpecsClosingShared() = default;
  SpecsClosingShared(const SpecsClosingShared&) = delete;
  SpecsClosingShared& operator=(const SpecsClosingShared&) = delete;
  ~SpecsClosingShared() {
    for (auto& sp : specs)
      if (sp.shared_fd >= 0) ::close(std::exchange(sp.shared_fd, -1));
  }
};
}  // namespace

// run --count instructions: the case's counting processes, after its timed
// ones and never beside them, `jobs` at a time (what they count does not
// depend on the load); each with an empty cache directory of its own (a cold
// cache) and a directory for callgrind's dumps, removed once read.
void CaseRunner::count_runs(const Case& c, CaseResult& res, const Progress& progress) {
  const CountingSetup k = counting();
  if (!k.enabled) return;
  res.count_runs = k.runs;
  auto env = worker_environment(setup_, c);  // what the counting processes start with (count_spec)
  for (const auto& [key, v] : counting_env(k, counts_pools_as_timed(c))) env[key] = v;
  res.count = count_setup_record(k, count_timeout_s(setup_), env, counts_pools_as_timed(c));
  if (res.count->unsupported = count_unsupported(c); !res.count->unsupported.empty() || interrupted()) return;
  if (progress)
    progress(fmt::format("counting instructions: {} processes ({}), {} at a time (not timed)", k.runs, k.source,
                         std::min(k.jobs, k.runs)));
  std::vector<std::unique_ptr<PrivateDir>> dumps;  // removed by the door when they go
  std::vector<ProcessResult> done;
  {
    SpecsClosingShared s;  // every descriptor opened so far is closed on every way out
    for (int i = 0; i < k.runs; ++i) {
      fs::path cache;
      auto err = create_owned_cache_dir(setup_.out_dir, fmt::format("{}.count-{}", c.id, i), &cache);
      if (!err) err = empty_owned_cache_dir(cache, setup_.out_dir);
      if (!err) try {
          dumps.push_back(std::make_unique<PrivateDir>("jitbench-count"));
        } catch (const WriteError& e) {
          err = e.what();
        }
      if (err) {
        res.counted.push_back(not_started(RunMode::Count, i, *err));
        return;
      }
      s.specs.push_back(count_spec(k, c, i, cache, dumps.back()->path()));
    }
    done = launcher_.launch_all(s.specs, k.jobs);
  }
  for (int i = 0; i < k.runs; ++i) {
    RunRequest req{RunMode::Count, i, count_timeout_s(setup_), {}, c.dtype, c.precision, c.gpu};
    RunRecord r = classify_run(done[static_cast<std::size_t>(i)], req);
    r.log = (fs::path("logs") / c.id / log_name(RunMode::Count, i)).string();
    attach_counts(r, k, dumps[static_cast<std::size_t>(i)]->path());
    res.counted.push_back(std::move(r));
  }
}

void CaseRunner::warm_runs(const Case& c, CaseResult& res, const fs::path& cache_dir, const Progress& progress) {
  if (res.warm_runs == 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string calls = c.worker() == WorkerKind::Python ? warm_calls_text(setup_)
                                                              : fmt::format("{} calls", res.warm_iters);
  for (int i = 0;; ++i) {
    const auto medians = warm_process_medians(res);
    if (auto why = stop_before(i, res.warm_runs, medians, seconds_since(t0)); !why.empty()) {
      res.sampling.warm_stopped = why;
      return;
    }
    if (progress)
      progress(!setup_.target && res.warm_runs == 1
                   ? fmt::format("warm run ({})", calls)
                   : fmt::format("{} ({})", run_label("warm run", i, res.warm_runs, setup_.target, medians), calls));
    RunRecord r = measured_run(c, RunMode::Warm, i, cache_dir);
    const bool go_on = worth_continuing(r);
    res.warm.push_back(std::move(r));
    if (!go_on) {
      res.sampling.warm_stopped = "run_not_ok";
      return;
    }
  }
}

// A case's result before its first process: what it was asked for, and
// where its processes start (its cache directory), or why none can.
CaseResult CaseRunner::open_case(const Case& c, fs::path& cache_dir) const {
  CaseResult res;
  res.c = c;
  res.cold_runs = setup_.cold_runs;
  const WarmCallsAsked warm = warm_calls_asked(setup_, c.worker());
  res.warm_iters = warm.max;
  res.warm_runs = setup_.warm_iters > 0 ? setup_.warm_runs : 0;
  res.timeout_s = setup_.timeout_s;
  res.deterministic = setup_.deterministic;
  res.seed = setup_.seed;
  res.sampling.recorded = true;
  res.sampling.rule = setup_.target;
  res.sampling.warm_min_time_s = warm.min_time_s;
  if (warm.min_time_s) res.sampling.warm_min_calls = warm.min;
  if (setup_.target) {  // the most each side may get: what the rule was allowed
    res.sampling.warm_min_calls = warm.min;
    res.cold_runs = setup_.target->max_runs;
    if (res.warm_runs > 0) res.warm_runs = setup_.target->max_runs;
  }
  res.sampling.cold_stopped = res.sampling.warm_stopped = "not_started";
  if (!setup_.deterministic) res.started_at = utc_now();
  const auto env = c.env.empty() ? setup_.environments.end() : setup_.environments.find(c.env);
  if (env != setup_.environments.end()) res.environment = env->second.file;
  if (!c.env.empty() && env == setup_.environments.end()) {  // never another interpreter in its place
    res.cold.push_back(environment_unavailable("environment_unavailable: the environment was not prepared"));
  } else if (env != setup_.environments.end() && !env->second.ok) {
    res.cold.push_back(environment_unavailable(env->second.reason));
  } else if (auto err = create_owned_cache_dir(setup_.out_dir, c.id, &cache_dir)) {
    res.cold.push_back(not_started(RunMode::Cold, 0, *err));
  } else {
    res.cache_dir = fs::relative(cache_dir, setup_.out_dir).string();
    auto wenv = worker_env(setup_, c, cache_dir);
    res.worker_env = wenv.set;
    res.inherited_cache_settings = wenv.found;
  }
  return res;
}

// One more cold process of a case, or why its cold side stops (the same rule
// as one case alone: the fixed count, the interval, a run that is not ok).
bool CaseRunner::next_cold(Side& s, const Progress& progress) {
  const auto ttfr = cold_values(s.res, "ttfr_s");
  if (auto why = stop_before(s.next, setup_.cold_runs, ttfr, s.spent_s); !why.empty()) {
    s.res.sampling.cold_stopped = why;
    s.going = false;
    s.finish = why != "interrupted";
    return false;
  }
  if (progress) progress(run_label("cold run", s.next, setup_.cold_runs, setup_.target, ttfr));
  const auto t0 = std::chrono::steady_clock::now();
  RunRecord r = measured_run(s.res.c, RunMode::Cold, s.next, s.cache_dir);
  s.spent_s += seconds_since(t0);  // its own processes' time, not its neighbours'
  const bool go_on = worth_continuing(r);
  s.res.cold.push_back(std::move(r));
  ++s.next;
  if (!go_on) {
    s.res.sampling.cold_stopped = "run_not_ok";
    s.going = s.finish = false;
  }
  return true;
}

CaseResult CaseRunner::run(const Case& c, const Progress& progress) {
  return std::move(run_interleaved({c}, progress).results.front());
}

Interleaved CaseRunner::run_interleaved(const std::vector<Case>& cases, const Progress& progress) {
  std::vector<std::pair<CaseRunner*, Case>> sides;
  for (const auto& c : cases) sides.emplace_back(this, c);
  return run_side_by_side(sides, progress);
}

// The cases' cold processes round-robin (A1 B1 A2 B2 ...), each case by its own
// stopping rule, so that a drift of the machine lands on every side alike;
// then each case's cross-check and warm processes, case after case.
// The sides' anatomy processes round-robin too (A1 B1 A2 B2 ...), for the
// reason their cold processes are: a sub-phase compared across the sides
// must not take a drift of the machine for a change.
void CaseRunner::interleave_anatomy(const std::vector<std::pair<CaseRunner*, Case>>& cases,
                                    std::vector<Side>& sides, const Progress& progress) {
  std::vector<bool> on(sides.size());
  for (std::size_t k = 0; k < sides.size(); ++k)
    on[k] = sides[k].finish && cases[k].first->anatomy_applies(sides[k].res.c, sides[k].res);
  for (int i = 0; std::find(on.begin(), on.end(), true) != on.end(); ++i)
    for (std::size_t k = 0; k < sides.size(); ++k)
      if (on[k]) on[k] = cases[k].first->anatomy_run(sides[k].res.c, sides[k].res, sides[k].cache_dir, progress, i);
}

Interleaved run_side_by_side(const std::vector<std::pair<CaseRunner*, Case>>& cases,
                             const CaseRunner::Progress& progress) {
  std::vector<CaseRunner::Side> sides(cases.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    auto& [runner, c] = cases[k];
    auto& s = sides[k];
    s.res = runner->open_case(c, s.cache_dir);
    s.going = s.res.cold.empty();
    if (s.going) runner->open_shared(c);
    kill_point("case_opened");
    if (s.going && c.cache_policy == CachePolicy::WarmCache) s.going = runner->prime(c, s.res, s.cache_dir, progress);
  }
  Interleaved out;
  for (bool any = true; any;) {
    any = false;
    for (std::size_t k = 0; k < sides.size(); ++k) {
      if (!sides[k].going) continue;
      const int i = sides[k].next;
      if (cases[k].first->next_cold(sides[k], progress)) out.order.push_back({k, i});
      any = any || sides[k].going;
    }
  }
  for (std::size_t k = 0; k < sides.size(); ++k)
    if (sides[k].finish) cases[k].first->crosscheck(sides[k].res.c, sides[k].res, sides[k].cache_dir, progress);
  CaseRunner::interleave_anatomy(cases, sides, progress);
  for (std::size_t k = 0; k < sides.size(); ++k) {
    auto& s = sides[k];
    CaseRunner& runner = *cases[k].first;
    if (s.finish) {
      runner.warm_runs(s.res.c, s.res, s.cache_dir, progress);
      runner.count_runs(s.res.c, s.res, progress);
    }
    settle_status(s.res);
    if (!runner.setup_.deterministic) s.res.finished_at = utc_now();
    out.results.push_back(std::move(s.res));
  }
  return out;
}

}  // namespace jitbench
