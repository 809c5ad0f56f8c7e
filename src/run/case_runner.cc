#include "run/case_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

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

std::map<std::string, std::string> worker_env(const WorkerSetup& s, const Case& c, const fs::path& cache_dir) {
  std::map<std::string, std::string> env;
  std::string pythonpath = s.worker_dir.string();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += ":" + std::string(old);
  env["PYTHONPATH"] = pythonpath;
  env["PYTHONUNBUFFERED"] = "1";
  env["JITBENCH_CACHE_POLICY"] = c.cache_policy;
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
  spec.argv = {setup_.python, "-m", "jitbench_worker", "run",
               "--fd", std::to_string(kResultFd),
               "--mode", mode,
               "--backend", c.backend,
               "--workload", c.workload,
               "--n", std::to_string(c.n),
               "--dtype", c.dtype,
               "--warm-iters", std::to_string(setup_.warm_iters),
               "--seed", std::to_string(setup_.seed)};
  spec.env_set = worker_env(setup_, c, cache_dir);
  const auto log_rel = fs::path("logs") / c.id / (mode == "cold" ? fmt::format("cold-{}.log", index) : "warm.log");
  spec.log_path = setup_.out_dir / log_rel;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(setup_.timeout_s * 1000));
  RunRecord r = interpret_run(launcher_.launch(spec), mode, index, setup_.timeout_s);
  r.log = log_rel.string();
  return r;
}

CaseResult CaseRunner::run(const Case& c, const Progress& progress) {
  CaseResult res;
  res.c = c;
  res.cold_runs = setup_.cold_runs;
  res.warm_iters = setup_.warm_iters;
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
    const auto prepare = [&]() -> std::optional<std::string> { return empty_owned_cache_dir(cache_dir, setup_.out_dir); };
    bool all_ok = true;
    for (int i = 0; i < setup_.cold_runs && all_ok && !interrupted(); ++i) {
      if (progress) progress(fmt::format("cold run {}/{}", i + 1, setup_.cold_runs));
      RunRecord r;
      if (auto err = prepare()) {
        r.mode = "cold";
        r.index = i;
        r.reason = "worker_failed";
        r.detail = *err;
      } else {
        r = one_run(c, "cold", i, cache_dir);
      }
      all_ok = r.status == Status::Ok;
      res.cold.push_back(std::move(r));
    }
    if (all_ok && setup_.warm_iters > 0 && !interrupted()) {
      if (progress) progress(fmt::format("warm run ({} calls)", setup_.warm_iters));
      if (auto err = prepare()) {
        RunRecord r;
        r.mode = "warm";
        r.reason = "worker_failed";
        r.detail = *err;
        res.warm = r;
      } else {
        res.warm = one_run(c, "warm", 0, cache_dir);
      }
    }
  }
  settle_status(res);
  if (!setup_.deterministic) res.finished_at = utc_now();
  return res;
}

}  // namespace jitbench
