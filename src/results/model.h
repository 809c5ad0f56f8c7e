#pragma once
// The one result model every consumer reads: what run/ measured, what
// results/read.cc reads back from a case file, what analysis/ and export/ use.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/names.h"
#include "plan/plan.h"
#include "results/worker_report.h"

namespace jitbench {

// One worker process.
struct RunRecord {
  RunMode mode = RunMode::Cold;
  int index = 0;
  Status status = Status::Failed;
  Reason reason;       // none when ok
  std::string detail;  // human-readable context for reason
  std::optional<double> process_start_s, import_s, setup_s, first_call_s, second_call_s, total_s;
  std::vector<double> calls_s;  // warm only
  bool ttfr_includes_import = true;  // false for warm_process: the import was paid earlier
  // Files and bytes in the case's compile cache before and after this run.
  std::uint64_t cache_files_before = 0, cache_bytes_before = 0, cache_files_after = 0, cache_bytes_after = 0;
  double wall_s = 0;
  std::string exit_kind;
  int exit_code = -1;
  int signal = 0;
  long max_rss_kib = 0;
  double user_s = 0, sys_s = 0;
  std::string log;  // path relative to the out dir
  WorkerReport worker;  // what the worker reported beyond timings

  std::optional<double> ttfr_s() const;          // import + setup + first call
  std::optional<double> process_ttfr_s() const;  // process start + ttfr
  // Spawn-to-exit wall time outside the worker's own clocks: its start-up
  // before the hello line is process_start_s; this is the rest (loading the
  // worker's modules, verifying, reporting, exiting). nullopt without a total.
  std::optional<double> harness_gap_s() const;
};

struct CaseResult {
  Case c;
  int cold_runs = 0;   // requested
  int warm_iters = 0;  // requested
  int warm_runs = 0;   // requested warm processes
  double timeout_s = 0;
  bool deterministic = false;
  std::uint64_t seed = 0;
  Status status = Status::Ok;
  Reason reason;
  std::string detail;
  std::vector<RunRecord> cold;
  std::vector<RunRecord> warm;  // one record per warm process
  std::optional<RunRecord> priming;  // warm_cache: the unmeasured run that filled the cache
  // JAX: a separate process that compiled the function through the
  // ahead-of-time path, timed by jitbench (mode aot); never part of the status.
  std::optional<RunRecord> crosscheck;
  std::string cache_dir;  // relative to the out dir; "" when none
  std::map<std::string, std::string> worker_env;  // what jitbench set for the worker
  std::string started_at, finished_at;
  // A case read back from an out dir: its file as it was, which resume and
  // merge write back unchanged; "" for a case measured by this process.
  std::string recorded_json;
  // Merged runs: the environment file the case ran in (index "environment"
  // of the case); "" when the run has one environment.
  std::string environment;

  // The worker's report from the first run that produced one (versions, device...).
  const WorkerReport* first_worker_report() const;
};

// Status of a case from its runs: the most severe run, reason from the first such run.
void settle_status(CaseResult& r);

}  // namespace jitbench
