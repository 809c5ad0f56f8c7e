#pragma once
// Every name jitbench passes between the command line, the worker and the
// artifacts, as an enum with its one string form. Parsing and printing live
// here and nowhere else, so a name cannot drift between the three.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jitbench {

enum class Status { Ok, Warn, Failed };
std::string_view to_string(Status s);
std::optional<Status> parse_status(std::string_view s);
// Failed > Warn > Ok.
int severity(Status s);

// A name with what it means (`jitbench list`, the worker's --help).
struct NameInfo {
  std::string name;
  std::string summary;
};

// How a compile cache is prepared for the runs of a case (README: Cache modes).
enum class CachePolicy { ColdCache, WarmCache, WarmProcess };
std::string_view to_string(CachePolicy p);
// Accepts the seed harness's "process_cold" for cold_cache.
std::optional<CachePolicy> parse_cache_policy(std::string_view s);
// Every policy in order, each with its description.
const std::vector<NameInfo>& cache_policies();
bool is_cache_policy(std::string_view name);
// "a, b, c" for error messages (with the alias).
std::string cache_policy_names();

// The matmul precision asked of every framework (docs/precision.md).
enum class Precision { Default, Highest };
std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view s);
const std::vector<NameInfo>& precisions();
bool is_precision(std::string_view name);
std::string precision_names();

// What one worker process is asked to do.
enum class RunMode { Cold, Warm, Aot, Anatomy, Count };
std::string_view to_string(RunMode m);
std::optional<RunMode> parse_run_mode(std::string_view s);
const std::vector<NameInfo>& run_modes();

// worker/jitbench_worker/names.py as it must read: the names above the worker
// takes on its command line (names_test.cc holds the committed file equal).
std::string worker_names_py();

// Why a run or a case is not ok. Some carry an argument, written after a colon:
// "missing_dependency: jax", "unsupported: numpy has no compile cache to warm".
enum class ReasonCode {
  None,
  MissingDependency,  // warn: the backend's package is not installed (arg: the package)
  GpuUnavailable,     // warn: a GPU was asked for and not found
  Unsupported,        // warn: the backend cannot run this workload (arg: why)
  InterpreterOnly,    // warn: Triton without a GPU, verified but interpreted
  CacheNotUsed,       // warn: warm_cache, the framework counted no hit
  CachePartiallyUsed, // warn: warm_cache, hits and misses
  CacheEvidenceConflict,  // warn: warm_cache, a counted hit the kernel never saw read
  CacheUnverified,    // warn: warm_cache, the framework reports no cache reads
  CacheNotCold,       // warn: cold_cache/warm_process, the run was not cold (a hit, an old entry read,
                      // a write by a framework whose defaults write nothing, a cache outside the case's dir)
  CrosscheckDisagrees,  // warn: the ahead-of-time compile contradicts the event-based phases
  CrosscheckFailed,     // warn: the ahead-of-time cross-check process did not produce a result
  AnatomyFailed,        // warn: a compile anatomy process (run --anatomy) crashed or timed out
  CountFailed,          // warn: an instruction-counting process (run --count) crashed, timed out or counted nothing
  CountUnsupported,     // warn: counting was asked for a case it cannot count (arg: why: a GPU, a native worker, ...)
  EnvironmentUnavailable,  // warn: the case's environment could not be built (arg: the installer's reason)
  WorkerFailed,       // failed: crash, signal, non-zero exit, bad or missing messages
  Timeout,            // failed: killed at its timeout
  IncorrectResult,    // failed: an output differs from the float64 reference
  Unsynchronized,     // failed: device work still queued when the clock stopped
  InconsistentTimings,  // failed: the worker's numbers cannot be true
  ProtocolViolation,  // failed: a field a check needs is missing or malformed (arg: what)
  PrecisionMismatch,  // failed: the claimed arithmetic cannot be what this device and setting compute
  Interrupted,        // failed: jitbench was interrupted during the run
};

struct Reason {
  ReasonCode code = ReasonCode::None;
  std::string arg;  // after the colon; "" for codes without one
  bool empty() const { return code == ReasonCode::None; }
  bool is_cache_claim() const;  // one of the cache_* warnings
  bool operator==(const Reason&) const = default;
};
std::string to_string(const Reason& r);  // "" for none
// nullopt for a name jitbench does not know.
std::optional<Reason> parse_reason(std::string_view s);

}  // namespace jitbench
