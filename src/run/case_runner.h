#pragma once
// Runs one case: cold runs, each a fresh worker with an emptied compile cache,
// then warm_runs warm workers that each time warm_iters calls (several warm
// processes sample the process-to-process variation that one process cannot
// show, which `jitbench compare` needs). Under --target-ci the counts are not
// fixed: processes are added until the median's interval is tight
// (stats/sequential.h), cold TTFR and warm per-process medians each. A case stops at its first
// run that is not ok (a missing package will not appear on the next try); the
// runs made before it are kept. Nothing here times anything: the worker does.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "config/suite.h"
#include "plan/plan.h"
#include "results/model.h"
#include "run/protocol.h"
#include "run/counting.h"
#include "run/subprocess.h"

namespace jitbench {

// A case's environment as the run prepared it (env/environments.h).
struct EnvironmentRun {
  bool ok = false;
  std::string reason;                            // when !ok: "environment_unavailable: ..."
  std::string python;                            // its interpreter
  std::map<std::string, std::string> variables;  // set for its workers (deliberate: recorded, never removed)
  std::string file;                              // environments/env-<name>.json, relative to the out dir
};

struct WorkerSetup {
  std::string python;                     // interpreter whose packages are benchmarked
  std::filesystem::path worker_dir;       // directory holding the jitbench_worker package
  std::filesystem::path native_worker;    // the native workers' executables (CPU, CUDA)
  std::filesystem::path native_cuda_worker;
  std::string native_blas;                // CBLAS library for the native matmul ("" if none)
  std::filesystem::path out_dir;
  int cold_runs = 5;
  int warm_iters = 30;
  int warm_runs = 1;
  double timeout_s = 300;
  // --target-ci: cold and warm processes until the rule stops them (cold_runs
  // and warm_runs unused), warm calls from warm_min_calls to warm_iters likewise.
  std::optional<stats::StoppingRule> target;
  int warm_min_calls = 10;
  // No count fixed: warm calls until a minimum count and time (warm_iters is
  // then the calibration's most); --target-ci's early stop still applies.
  std::optional<WarmCalibration> calibration;
  // What the worker is asked for and the case records: never more than warm_iters.
  int warm_calls_at_least() const {
    const int least = target ? warm_min_calls : calibration ? calibration->min_calls : warm_iters;
    return least < warm_iters ? least : warm_iters;
  }
  bool deterministic = false;
  std::uint64_t seed = 0;
  int anatomy_runs = 0;  // run --anatomy: processes per JIT case (mode anatomy), after the cross-check
  CountingSetup counting;  // run --count instructions: processes per case (mode count), after the warm ones
  std::map<std::string, EnvironmentRun> environments;  // by name, for cases with an environment
};

// What the Python workers of one case share (worker/jitbench_worker/shared.py):
// the float64 reference of its inputs and the precision observation, made by
// the case's first process and written to `path` (references/<case>.pickle in
// the out dir, which the index lists with its sha256). `sha256` is what
// jitbench read back after that process; every later process is handed it
// and refuses a file that does not hash to it.
struct CaseShared {
  std::filesystem::path path;
  std::string sha256;  // "" until a process of the case wrote the file
};
inline constexpr const char* kReferencesDir = "references";
// references/<case>.pickle, relative to the out dir.
inline std::string shared_reference_path(const std::string& case_id) {
  return std::string(kReferencesDir) + "/" + case_id + ".pickle";
}
// The descriptor one process gets for its case's shared reference: the
// recorded file read-only, or (staging) a fresh file to write it into.
struct SharedHandle {
  int fd = -1;
  bool staging = false;
};

// A counting process's timeout: the timed runs', times the tool's slowdown
// (valgrind's; a hardware counter costs nothing).
double count_timeout_s(const WorkerSetup& s);

// The command line of one of the case's workers, from what the case carries
// (its worker kind, its workload's file): no catalog is consulted. `shared`:
// the case's shared reference (Python workers only).
std::vector<std::string> worker_argv(const WorkerSetup& s, const Case& c, RunMode mode,
                                     const CaseShared* shared = nullptr);
// The warm calls a worker of this kind is asked for (and must report): fixed,
// or from a minimum to warm_iters by --target-ci's rule and the calibration's
// time (Python workers; a native floor makes a fixed count).
WarmCallsAsked warm_calls_asked(const WorkerSetup& s, WorkerKind kind);
// "30 calls", "5 to 1000 calls (at least 0.5 s of them)": the warm calls of a Python worker, in words.
std::string warm_calls_text(const WorkerSetup& s);

// Cases measured side by side (run_interleaved): their results, in the order
// given, and the order their cold processes ran in.
struct ColdStep {
  std::size_t side = 0;  // which case (its index in the cases given)
  int run = 0;           // its cold process, from 0
  bool operator==(const ColdStep&) const = default;
};
struct Interleaved {
  std::vector<CaseResult> results;
  std::vector<ColdStep> order;
};

class CaseRunner;
// Cases of several runners (each its own out dir: the two sides of an A/A
// comparison) measured side by side, cold processes round-robin.
Interleaved run_side_by_side(const std::vector<std::pair<CaseRunner*, Case>>& cases,
                             const std::function<void(const std::string&)>& progress = {});

class CaseRunner {
 public:
  using Progress = std::function<void(const std::string& what)>;
  CaseRunner(ProcessLauncher& launcher, WorkerSetup setup) : launcher_(launcher), setup_(std::move(setup)) {}
  CaseResult run(const Case& c, const Progress& progress = {});
  // Cases compared with one another (one case's environments, the A and B of
  // an A/A comparison): their cold processes round-robin, A1 B1 A2 B2 ...
  Interleaved run_interleaved(const std::vector<Case>& cases, const Progress& progress = {});

 private:
  friend Interleaved run_side_by_side(const std::vector<std::pair<CaseRunner*, Case>>&,
                                      const std::function<void(const std::string&)>&);
  // tmpdir: the TMPDIR the process gets (unset: the inherited one).
  RunRecord one_run(const Case& c, RunMode mode, int index, const std::filesystem::path& cache_dir,
                    const std::optional<std::filesystem::path>& tmpdir = std::nullopt);
  RunRecord measured_run(const Case& c, RunMode mode, int index, const std::filesystem::path& cache_dir);
  // Each returns false when the case should stop.
  bool prime(const Case& c, CaseResult& res, const std::filesystem::path& cache_dir, const Progress& progress);
  // The case's shared reference: a stale file of an earlier run removed, none recorded yet.
  void open_shared(const Case& c);
  SharedHandle shared_for_process(const Case& c) const;
  // Closes the handle; its sha256 recorded and the file renamed into place once a process wrote it.
  void note_shared(const Case& c, const RunRecord& r, SharedHandle& handle);
  struct Side {
    CaseResult res;
    std::filesystem::path cache_dir;
    bool going = false, finish = false;  // more cold processes; cross-check and warm processes after them
    int next = 0;
    double spent_s = 0;  // the time its own cold processes took (--target-ci's --max-time)
  };
  CaseResult open_case(const Case& c, std::filesystem::path& cache_dir) const;
  bool next_cold(Side& s, const Progress& progress);
  // Fixed count or the rule: "" to go on with run i, else why the side stops.
  std::string stop_before(int i, int fixed, const std::vector<double>& values, double spent_s) const;
  void crosscheck(const Case& c, CaseResult& res, const std::filesystem::path& cache_dir, const Progress& progress);
  void warm_runs(const Case& c, CaseResult& res, const std::filesystem::path& cache_dir, const Progress& progress);
  // run --anatomy: whether the case takes anatomy processes (then res.anatomy_runs is set), and its
  // i-th one, false when the case should take no more (a process not ok, or interrupted).
  bool anatomy_applies(const Case& c, CaseResult& res) const;
  bool anatomy_run(const Case& c, CaseResult& res, const std::filesystem::path& cache_dir, const Progress& progress,
                   int i);
  // The sides' anatomy processes, round-robin (run_side_by_side).
  static void interleave_anatomy(const std::vector<std::pair<CaseRunner*, Case>>& cases, std::vector<Side>& sides,
                                 const Progress& progress);
  void count_runs(const Case& c, CaseResult& res, const Progress& progress);
  // The counting setup of this run's cases: the run's, counting as many warm
  // calls as the timed runs make, kCountCalls at most (under valgrind a call of
  // a large matmul takes minutes).
  CountingSetup counting() const;
  // One counting process's spawn: its own empty cache directory and dump directory.
  SpawnSpec count_spec(const CountingSetup& k, const Case& c, int index, const std::filesystem::path& cache_dir,
                       const std::filesystem::path& dump_dir) const;
  ProcessLauncher& launcher_;
  WorkerSetup setup_;
  std::map<std::string, CaseShared> shared_;  // by case id
};

}  // namespace jitbench
