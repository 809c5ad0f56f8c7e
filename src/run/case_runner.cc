#include "run/case_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

#include "config/catalog.h"
#include "run/cache_dir.h"
#include "run/interpret.h"
#include "util/interrupt.h"

namespace jitbench {
namespace fs = std::filesystem;

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {
// A cache claim that failed, or an interpreted kernel, is worth reporting on
// every run, not a reason to stop.
bool worth_continuing(const RunRecord& r) {
  return r.status == Status::Ok || r.reason.rfind("cache_", 0) == 0 || r.reason == "interpreter_only";
}

void warn(RunRecord& r, std::string reason, std::string detail) {
  r.status = Status::Warn;
  r.reason = std::move(reason);
  r.detail = std::move(detail);
}

// Cache entries the kernel saw this run read that it did not write itself (-1: not watched).
long long entries_read(const RunRecord& r) {
  const auto files = r.worker.value("cache_files", nlohmann::json::object());
  if (!files.is_object() || !files.value("available", false)) return -1;
  return files.value("entries_read", 0LL);
}
}  // namespace

void verify_cache_used(RunRecord& r) {
  if (r.status != Status::Ok || !r.worker.is_object()) return;
  const auto ev = r.worker.value("cache_events", nlohmann::json::object());
  if (!ev.is_object() || !ev.contains("hits") || !ev["hits"].is_number()) {
    warn(r, "cache_unverified", "the framework reported no cache reads for this run, so a hit cannot be shown");
    return;
  }
  const auto hits = ev["hits"].get<long long>();
  const auto misses = ev.value("misses", 0LL);
  const auto read = entries_read(r);
  if (hits == 0) {
    warn(r, "cache_not_used",
         fmt::format("the primed compile cache was not read: 0 hits, {} misses (framework counters)", misses));
  } else if (misses > 0) {
    warn(r, "cache_partially_used",
         fmt::format("{} hit(s) but {} miss(es): part of the first call was compiled anew", hits, misses));
  } else if (read == 0) {
    warn(r, "cache_evidence_conflict",
         fmt::format("the framework counted {} hit(s), but the kernel saw no cache entry read (inotify)", hits));
  } else {
    r.detail = read > 0 ? fmt::format("{} hit(s), 0 misses (framework counters); {} cache entries read (inotify)",
                                      hits, read)
                        : fmt::format("{} hit(s), 0 misses (framework counters)", hits);
  }
}

void verify_cache_cold(RunRecord& r) {
  if (r.status != Status::Ok) return;
  if (const auto read = entries_read(r); read > 0)
    warn(r, "cache_not_cold",
         fmt::format("{} cache entries that existed before the run were read: the compile cache was not empty", read));
}

std::map<std::string, std::string> worker_env(const WorkerSetup& s, const Case& c, const fs::path& cache_dir) {
  std::map<std::string, std::string> env;
  std::string pythonpath = s.worker_dir.string();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += ":" + std::string(old);
  env["PYTHONPATH"] = pythonpath;
  env["PYTHONUNBUFFERED"] = "1";
  env["JITBENCH_CACHE_POLICY"] = c.cache_policy;
  if (!s.native_blas.empty() && c.backend == "native") env["JITBENCH_NATIVE_BLAS"] = s.native_blas;
  if (!cache_dir.empty()) env["JITBENCH_CACHE_DIR"] = fs::absolute(cache_dir).string();
  if (s.deterministic) {
    // Single-threaded math and a fixed hash seed: results become bit-reproducible
    // from run to run (timings of course do not).
    env["PYTHONHASHSEED"] = "0";
    for (const char* k : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"})
      env[k] = "1";
    env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false --xla_force_host_platform_device_count=1";
    env["TF_DETERMINISTIC_OPS"] = "1";
  }
  return env;
}

RunRecord CaseRunner::one_run(const Case& c, const std::string& mode, int index, const fs::path& cache_dir) {
  SpawnSpec spec;
  const auto* backend = find_backend(c.backend);
  if (backend && backend->worker == WorkerKind::Native) {
    spec.argv = {setup_.native_worker.string(), "run"};
  } else {
    spec.argv = {setup_.python, "-m", "jitbench_worker", "run"};
  }
  if (const auto* w = find_workload(c.workload); w && !w->path.empty()) {
    spec.argv.push_back("--workload-path");
    spec.argv.push_back(w->path);
  }
  spec.argv.insert(spec.argv.end(), {
               "--fd", std::to_string(kResultFd),
               "--mode", mode,
               "--backend", c.backend,
               "--workload", c.workload,
               "--n", std::to_string(c.n),
               "--dtype", c.dtype,
               "--warm-iters", std::to_string(setup_.warm_iters),
               "--seed", std::to_string(setup_.seed),
               "--cache-policy", c.cache_policy,
               "--precision", c.precision});
  spec.env_set = worker_env(setup_, c, cache_dir);
  const auto log_name = mode == "warm"  ? fmt::format("warm-{}.log", index)
                       : mode == "aot" ? std::string("crosscheck.log")
                       : index < 0     ? std::string("priming.log")
                                       : fmt::format("cold-{}.log", index);
  const auto log_rel = fs::path("logs") / c.id / log_name;
  spec.log_path = setup_.out_dir / log_rel;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(setup_.timeout_s * 1000));
  const auto before = dir_stats(cache_dir);
  RunRecord r = interpret_run(launcher_.launch(spec), mode, std::max(index, 0), setup_.timeout_s);
  const auto after = dir_stats(cache_dir);
  r.log = log_rel.string();
  r.cache_files_before = before.files;
  r.cache_bytes_before = before.bytes;
  r.cache_files_after = after.files;
  r.cache_bytes_after = after.bytes;
  return r;
}

CaseResult CaseRunner::run(const Case& c, const Progress& progress) {
  CaseResult res;
  res.c = c;
  res.cold_runs = setup_.cold_runs;
  res.warm_iters = setup_.warm_iters;
  res.warm_runs = setup_.warm_iters > 0 ? setup_.warm_runs : 0;
  res.timeout_s = setup_.timeout_s;
  res.deterministic = setup_.deterministic;
  res.seed = setup_.seed;
  if (!setup_.deterministic) res.started_at = utc_now();

  fs::path cache_dir;
  if (auto err = create_owned_cache_dir(setup_.out_dir, c.id, &cache_dir)) {
    RunRecord r;
    r.mode = "cold";
    r.reason = "worker_failed";
    r.detail = *err;
    res.cold.push_back(r);
  } else {
    res.cache_dir = fs::relative(cache_dir, setup_.out_dir).string();
    res.worker_env = worker_env(setup_, c, cache_dir);
    // cold_cache and warm_process start every run from an empty cache;
    // warm_cache empties it once, fills it with an unmeasured priming run, and
    // then keeps it.
    const bool keep_cache = c.cache_policy == "warm_cache";
    const auto prepare = [&]() -> std::optional<std::string> { return empty_owned_cache_dir(cache_dir, setup_.out_dir); };
    const auto prepare_run = [&]() -> std::optional<std::string> { return keep_cache ? std::nullopt : prepare(); };
    const auto failed_prepare = [&](const std::string& mode, int index, const std::string& err) {
      RunRecord r;
      r.mode = mode;
      r.index = index;
      r.reason = "worker_failed";
      r.detail = err;
      return r;
    };
    bool all_ok = true;
    if (keep_cache) {
      if (progress) progress("priming the compile cache");
      if (auto err = prepare()) {
        res.cold.push_back(failed_prepare("cold", 0, *err));
        all_ok = false;
      } else {
        res.priming = one_run(c, "cold", -1, cache_dir);
        all_ok = res.priming->status == Status::Ok;
        // A priming run that cannot run tells why the case cannot either.
        if (!all_ok) res.cold.push_back(*res.priming);
      }
    }
    for (int i = 0; i < setup_.cold_runs && all_ok && !interrupted(); ++i) {
      if (progress) progress(fmt::format("cold run {}/{}", i + 1, setup_.cold_runs));
      RunRecord r;
      if (auto err = prepare_run()) {
        r = failed_prepare("cold", i, *err);
      } else {
        r = one_run(c, "cold", i, cache_dir);
        keep_cache ? verify_cache_used(r) : verify_cache_cold(r);
      }
      all_ok = worth_continuing(r);
      res.cold.push_back(std::move(r));
    }
    // The JIT's event-based phases, checked against its ahead-of-time path in a
    // process of its own (JAX; other workers answer unsupported).
    if (all_ok && !interrupted() && c.cache_policy == "cold_cache" && is_aot_crosschecked(c.backend)) {
      if (progress) progress("cross-checking the phases (ahead-of-time compile)");
      if (!prepare_run()) res.crosscheck = one_run(c, "aot", 0, cache_dir);
    }
    for (int i = 0; i < res.warm_runs && all_ok && !interrupted(); ++i) {
      if (progress)
        progress(res.warm_runs == 1 ? fmt::format("warm run ({} calls)", setup_.warm_iters)
                                    : fmt::format("warm run {}/{} ({} calls)", i + 1, res.warm_runs, setup_.warm_iters));
      RunRecord r = [&] {
        if (auto err = prepare_run()) return failed_prepare("warm", i, *err);
        return one_run(c, "warm", i, cache_dir);
      }();
      keep_cache ? verify_cache_used(r) : verify_cache_cold(r);
      all_ok = worth_continuing(r);
      res.warm.push_back(std::move(r));
    }
  }
  settle_status(res);
  if (!setup_.deterministic) res.finished_at = utc_now();
  return res;
}

}  // namespace jitbench
