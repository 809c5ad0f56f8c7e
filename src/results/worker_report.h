#pragma once
// What a worker reported about one run beyond its timings, parsed once from the
// result message (docs/protocol.md). `raw` is kept verbatim: the case file
// stores it as the worker sent it. The typed fields are what jitbench itself
// reads; nothing else looks into `raw` by key.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jitbench {

struct CacheEvents {
  bool reported = false;  // the framework counts cache reads ("hits" present)
  double hits = 0, misses = 0;
};

// The worker's own inotify count, as workers before jitbench.case.v3 reported
// it; jitbench now watches itself (RunRecord::cache_seen) and believes only that.
struct CacheFiles {
  bool watched = false;  // inotify could watch the cache directory
  double entries_read = 0, entries_written = 0;
};

struct Verification {
  bool present = false, ok = false;
  std::string message;
  std::string reference, metric;  // what the result was compared with, and how; "" when the worker did not say
  std::optional<double> error, tolerance;
};

// One item of a compile anatomy (mode anatomy; docs/anatomy.md): path[0] a
// phase (or a group of phases), each further element a sub-phase inside it.
struct AnatomyItem {
  std::vector<std::string> path;
  double s = 0;
  std::string source;
  // Where it ran, [start, end] seconds from the first call's start (an item
  // that ran more than once: each time; another thread's item: the union of
  // its events); empty where the worker did not say.
  std::vector<std::pair<double, double>> intervals{};
  // Another thread's item: the thread group it ran on ("" for the
  // dispatching thread's items) and its thread time summed over the group's
  // threads, beside `s`, its wall time (what its parent waited for it).
  std::string thread{};
  std::optional<double> thread_s{};
  bool operator==(const AnatomyItem&) const = default;
};

// What the anatomy's events cover of the first call outside every phase
// (its dispatch, the execution): the worker's anatomy.outside_phases.
struct AnatomyOutside {
  double events = 0, wall_s = 0, thread_s = 0;
  double first_call_s = 0;  // the first call's time outside every phase
  bool operator==(const AnatomyOutside&) const = default;
};

// A module the worker loaded from the user's own files (its result's
// local_modules, docs/protocol.md): the file and its sha256 then.
struct LocalModule {
  std::string path, sha256;
};

struct WorkerReport {
  nlohmann::json raw = nlohmann::json::object();

  bool has_first_call = false;
  std::vector<std::pair<std::string, double>> phases;  // every declared phase in order, 0 when absent
  double all_phases_sum = 0;  // every number under first_call.phases, declared or not
  std::map<std::string, std::string> phase_sources;
  std::optional<double> compiles_first, compiles_later;
  nlohmann::json compiled_functions;  // {name: count} or null
  CacheEvents cache, cache_later;
  CacheFiles files;
  std::optional<bool> cache_persistent;      // cache.persistent: the settings in force
  std::string cache_outside;                 // cache.outside_case_dir, joined: caches the framework uses elsewhere
  std::optional<bool> pending_after_last;    // sync check: true = work still queued
  std::optional<std::string> matmul_precision;
  std::optional<double> rss_after_import_kib, rss_before_first_call_kib, hwm_after_calls_kib, device_peak_bytes;
  nlohmann::json compiled_temp_bytes;         // XLA temp buffers of the compiled program, as reported; or null
  std::map<std::string, double> aot_steps;    // mode aot: trace_s, lower_s, compile_s, execute_s
  std::vector<AnatomyItem> anatomy;           // mode anatomy: the first call's items, as reported
  std::optional<AnatomyOutside> anatomy_outside;  // mode anatomy, where the worker reported it
  // instrumentation: whether this run carried the anatomy's instrumentation,
  // and whether a framework profiler session was open (nullopt: not reported).
  std::optional<bool> anatomy_instrumented, profiler_session;
  Verification verify, verify_first;
  bool has_workload_info = false;             // the worker described the workload's result
  nlohmann::json workload_info;               // check()'s info about the result (an object), or null
  nlohmann::json workload_record;             // the workload's catalog record as the worker sent it, or null
  std::string device_kind;                    // device.kind, "" when not reported
  std::string device_platform;                // device.platform ("cpu", "gpu", ...), "" when not reported
  std::string device_test_only;               // device.test_only: a GPU backend run on the CPU by a test switch
  // The user's own modules the process loaded; nullopt where the worker did
  // not record them (a worker from before local_modules, or another worker).
  std::optional<std::vector<LocalModule>> local_modules;

  bool empty() const { return raw.empty(); }
  std::optional<double> phase(const std::string& name) const;
};

// Never throws: a field of the wrong type reads as absent.
WorkerReport parse_worker_report(nlohmann::json raw);

}  // namespace jitbench
