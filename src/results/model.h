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
#include "results/interference.h"
#include "results/worker_report.h"
#include "stats/sequential.h"

namespace jitbench {

// What jitbench itself saw of the case's compile-cache directory while one
// worker ran (run/cache_watch.h): the evidence cache claims are judged by.
struct CacheObservation {
  bool recorded = false;  // false in case files older than jitbench.case.v3
  bool watched = false;   // inotify saw every directory that existed at the start, with no event lost
  std::string note;       // why not, when !watched ("" otherwise)
  std::uint64_t files_before = 0, bytes_before = 0, files_after = 0, bytes_after = 0;
  // Files that existed before the run and were read (IN_ACCESS) and not changed by it.
  std::uint64_t entries_read = 0;
  // By listings before and after: new files, files whose size or mtime changed, files gone.
  std::uint64_t added = 0, modified = 0, removed = 0;
  std::uint64_t written() const { return added + modified; }
};

// Where a worker process's wall time went, outside the measured clocks
// (import_s .. total_s) it tiles with (case file run "buckets",
// jitbench.case.v5): the worker stamps its first line and its result on
// CLOCK_MONOTONIC and times the harness's own buckets between them; jitbench
// places the stamps between its spawn and the exit. unattributed_s: the part of
// first line -> result in no bucket (negative: buckets that overlap).
struct HarnessBuckets {
  double interpreter_start_s = 0;  // spawn -> the worker's first line (the interpreter's own start-up)
  double harness_import_s = 0;     // first line -> import_s's clock (the harness's modules, arguments, hello)
  double harness_observe_s = 0;    // calls done -> verification (events collected, memory, precision observed)
  double harness_verify_s = 0;     // the float64 verification of the outputs
  double harness_report_s = 0;     // verified -> the result's stamp (memory probe, the result built)
  double harness_exit_s = 0;       // the result's stamp -> reaped (sending, bye, interpreter shutdown)
  double worker_span_s = 0;        // first line -> the result's stamp
  double unattributed_s = 0;
  // Not written: the first bucket whose reported duration disagrees with the
  // span between the worker's own marks around it ("" when every one fits).
  // A bucket swallowed into another keeps the sum; its marks still tell.
  std::string mismatch;
  bool operator==(const HarnessBuckets&) const = default;
};

// What a forked child adds to its RSS after it read pre_exec_rss_kib and
// before its exec (the code pages of the write and the exec it faults in, its
// stack): 0.2-0.4 MiB measured on Linux 6.18 (the C++ test's `true`, a small
// C program's); a wait4 peak within this of the reading may still be the copy's.
inline constexpr long kPreExecSlackKib = 512;

// What one counting process counted (run --count instructions;
// results/counts.h): the instructions between consecutive marks of the
// worker, in order — harness_start, import, setup, first_call (or its stages
// first_call.<stage>), second_call, warm_calls — as its source counted them.
struct CountSegment {
  std::string name;
  double instructions = 0;
  bool operator==(const CountSegment&) const = default;
};
struct RunCounts {
  std::string source;  // "valgrind" (callgrind's dumps, read by jitbench) or "hardware" (the worker's own reads)
  std::vector<CountSegment> segments;
  int warm_calls = 0;  // calls in the warm_calls segment
  std::string first_call_split;  // how the first call was divided, or why it was not
  std::string scope;   // which threads were counted
  bool fake = false;   // a test's fake hardware counter (JITBENCH_TEST_FAKE_PMU): not instructions
  bool operator==(const RunCounts&) const = default;
};

// How a case's instructions were counted, shared by its counting processes.
struct CountSetup {
  std::string source;   // valgrind | hardware
  std::string chosen;   // why this source
  std::string tool;     // "callgrind" | "perf_event_open"
  std::string version;  // "valgrind-3.19.0", "Linux 6.1.0"
  std::vector<std::string> options;  // the tool's command line before the worker's
  std::map<std::string, std::string> controls;  // PYTHONHASHSEED, aslr, threads: what was fixed, and how
  int calls = 0;         // warm calls counted per process
  double timeout_s = 0;  // each counting process's
  int jobs = 1;          // counting processes at a time
  // Why this case was not counted ("" when it was): a GPU, a native worker, a cache policy.
  std::string unsupported;
  bool operator==(const CountSetup&) const = default;
};

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
  CacheObservation cache_seen;  // the case's compile cache, as jitbench saw it during this run
  double wall_s = 0;
  std::string exit_kind;
  int exit_code = -1;
  int signal = 0;
  long max_rss_kib = 0;  // wait4's ru_maxrss: the larger of the worker's peak and pre_exec_rss_kib
  // The peak RSS of the worker's process before its exec, as the copy of
  // jitbench it was forked from (ProcessResult); nullopt in older case files.
  std::optional<long> pre_exec_rss_kib;
  double user_s = 0, sys_s = 0;
  // What else the machine did while this process ran (docs/noise.md); nullopt:
  // not reported (no /proc/stat, or a case file older than jitbench.case.v5).
  // Beside the status, never part of it.
  std::optional<Interference> interference;
  std::string log;  // path relative to the out dir
  WorkerReport worker;  // what the worker reported beyond timings
  std::optional<HarnessBuckets> buckets;  // from workers that stamp their life (the Python worker)
  std::optional<RunCounts> counts;  // mode count, once its counts were taken

  std::optional<double> ttfr_s() const;          // import + setup + first call
  // What a user's own script pays before its import starts: the interpreter's
  // start-up (buckets->interpreter_start_s: spawn -> the worker's first line);
  // without buckets, process_start_s (spawn -> hello), the nearest there is.
  std::optional<double> user_start_s() const;
  // user_start_s + ttfr (the harness's own imports are not in it with buckets).
  std::optional<double> process_ttfr_s() const;
  // The rest of the wall time: spawn to exit less user_start_s and total_s —
  // what the harness adds (with buckets exactly their harness_* buckets and
  // unattributed_s: its import, observation, verification, report, exit).
  // One split of the wall time with process_ttfr_s. nullopt without a total.
  std::optional<double> harness_gap_s() const;
  // The whole process's peak RSS (wait4), the harness's verification after
  // the measured calls included: max_rss_kib when it exceeds pre_exec_rss_kib
  // by more than kPreExecSlackKib; nullopt when it does not (wait4 cannot tell
  // the worker's peak from that of the copy of jitbench it was before its
  // exec). Without pre_exec_rss_kib (older files), max_rss_kib.
  std::optional<long> process_peak_rss_kib() const;
  // The workload's peak RSS: the worker's own high-water mark read after the
  // measured calls, before the float64 reference and the verification
  // (memory.hwm_after_calls_kib, every case version); nullopt: not reported.
  // What summary.md, compare and the history call the peak RSS.
  std::optional<double> workload_peak_rss_kib() const { return worker.hwm_after_calls_kib; }
  // Why the worker's memory figures cannot be true (a high-water mark above
  // the whole process's peak, or below the RSS it read before its first
  // call), "" when they can; checked when a run is classified and when it is read.
  std::string memory_inconsistency() const;
};

// A compile-cache setting found in the environment jitbench inherited, and
// what jitbench did with it before starting any worker (run/worker_env.h).
struct InheritedSetting {
  std::string variable, value;  // as inherited
  std::string action;           // "removed", or what was removed from a flag list
  bool operator==(const InheritedSetting&) const = default;
};

// How many runs a case got and why each side stopped there (case file
// "sampling", jitbench.case.v4). The intervals reached are recomputed from the
// runs, never stored apart from them.
struct SamplingRecord {
  bool recorded = false;  // false in case files older than jitbench.case.v4
  // --target-ci: the rule; nullopt: the fixed counts of cold_runs / warm_runs.
  std::optional<stats::StoppingRule> rule;
  int warm_min_calls = 0;  // --target-ci, calibrated calls: calls per warm process at least (at most warm_iters)
  // Calls calibrated by time (no count fixed): a warm process stops once its
  // calls add up to this, past warm_min_calls (config/suite.h, WarmCalibration).
  std::optional<double> warm_min_time_s;
  // fixed_count, target_reached, max_runs, max_time, run_not_ok, interrupted, not_started
  std::string cold_stopped, warm_stopped;
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
  // run --anatomy: processes of their own (mode anatomy) that broke the first
  // call's phases down (results/anatomy.h); a failed one fails the case.
  int anatomy_runs = 0;  // requested
  std::vector<RunRecord> anatomy;
  // run --count instructions: processes of their own (mode count) whose
  // instructions were counted per phase (results/counts.h); how, in `count`
  // (nullopt: not asked). A count process that crashed makes an ok case warn
  // count_failed; one whose counts cannot be true fails it.
  int count_runs = 0;  // requested
  std::vector<RunRecord> counted;
  std::optional<CountSetup> count;
  SamplingRecord sampling;
  std::string cache_dir;  // relative to the out dir; "" when none
  std::map<std::string, std::string> worker_env;  // what jitbench set for the worker
  std::vector<InheritedSetting> inherited_cache_settings;  // what jitbench kept from it
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

// How many of these runs were interfered with (docs/noise.md).
InterferenceShare interference_share(const std::vector<RunRecord>& runs);

// Status of a case from its runs: the most severe run, reason from the first
// such run; an ok case whose ahead-of-time cross-check disagrees or failed is
// warn / crosscheck_* (results/crosscheck.h), unless the disagreement came
// with interference (the case stays ok; its cross-check is marked interfered).
void settle_status(CaseResult& r);

// Whether a case's timings (TTFR, warm calls) may be compared with others':
// ok, or warned about nothing but its phase split (crosscheck_disagrees,
// crosscheck_failed: the times are measured, their attribution is in doubt).
bool timings_comparable(const CaseResult& c);

}  // namespace jitbench
