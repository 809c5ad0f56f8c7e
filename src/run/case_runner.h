#pragma once
// Runs one case: cold runs, each a fresh worker with an emptied compile cache,
// then warm_runs warm workers that each time warm_iters calls (several warm
// processes sample the process-to-process variation that one process cannot
// show, which `jitbench compare` needs). A case stops at its first
// run that is not ok (a missing package will not appear on the next try); the
// runs made before it are kept.
#include <filesystem>
#include <functional>
#include <string>

#include "plan/plan.h"
#include "results/model.h"
#include "run/subprocess.h"

namespace jitbench {

struct WorkerSetup {
  std::string python;                     // interpreter whose packages are benchmarked
  std::filesystem::path worker_dir;       // directory holding the jitbench_worker package
  std::filesystem::path native_worker;    // the native worker's executable
  std::string native_blas;                // CBLAS library for the native matmul ("" if none)
  std::filesystem::path out_dir;
  int cold_runs = 5;
  int warm_iters = 30;
  int warm_runs = 1;
  double timeout_s = 300;
  bool deterministic = false;
  std::uint64_t seed = 0;
};

// Environment jitbench sets for every worker of a case (recorded in the artifact).
std::map<std::string, std::string> worker_env(const WorkerSetup& s, const Case& c,
                                              const std::filesystem::path& cache_dir);

class CaseRunner {
 public:
  using Progress = std::function<void(const std::string& what)>;
  CaseRunner(ProcessLauncher& launcher, WorkerSetup setup) : launcher_(launcher), setup_(std::move(setup)) {}
  CaseResult run(const Case& c, const Progress& progress = {});

 private:
  RunRecord one_run(const Case& c, const std::string& mode, int index, const std::filesystem::path& cache_dir);
  ProcessLauncher& launcher_;
  WorkerSetup setup_;
};

// warm_cache, every cold run and warm process: ok only when the framework's
// own counters show a hit and no miss for the first call, and the kernel (when
// it could watch) saw a cache entry read; else warn / cache_not_used,
// cache_partially_used, cache_evidence_conflict or cache_unverified (the
// framework reports no cache reads).
void verify_cache_used(RunRecord& r);
// cold_cache and warm_process: warn / cache_not_cold when the run read cache
// entries that existed before it started.
void verify_cache_cold(RunRecord& r);

// ISO 8601 UTC timestamp of now.
std::string utc_now();

}  // namespace jitbench
