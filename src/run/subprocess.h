#pragma once
// Spawning one worker process: its own process group, killed with jitbench
// (PR_SET_PDEATHSIG: no worker outlives a `kill -9` of jitbench to write into
// a log a resumed run reuses), stdin from /dev/null,
// stdout+stderr to a log file, a result channel on an inherited descriptor,
// a hard timeout enforced by killing the whole group, rusage from wait4.
// The worker's end is its exit, not EOF on the channel: a child it leaves
// holding the channel neither extends the run nor outlives it (the group is
// killed, and jitbench, a child subreaper, kills any descendant that escaped
// the group with setsid).
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "run/machine_sample.h"

namespace jitbench {

// The descriptor number the worker finds its result channel on.
inline constexpr int kResultFd = 3;
// The descriptor number the worker finds its case's shared reference on
// (SpawnSpec::shared_fd): a worker writes nothing into the out dir by path.
inline constexpr int kSharedFd = 4;

struct SpawnSpec {
  std::vector<std::string> argv;                         // argv[0]: absolute path or PATH name
  std::map<std::string, std::string> env_set;            // added to / overriding the parent's env
  std::vector<std::string> env_unset;                    // removed from the parent's env
  std::filesystem::path log_path;                        // stdout and stderr go here
  // When set, log_path lies below it and no link below it is followed
  // (the out dir); else log_path's own directory is trusted.
  std::filesystem::path log_root;
  std::chrono::milliseconds timeout{std::chrono::seconds(600)};
  // Snapshot the machine just before the spawn and just after the reap
  // (run/machine_sample.h): set for measured worker runs only.
  bool sample_machine = false;
  // Given to the worker as kSharedFd when >= 0 (jitbench keeps its own copy).
  int shared_fd = -1;
};

enum class ExitKind { Exited, Signaled, TimedOut, SpawnFailed };
const char* to_string(ExitKind k);

struct ProcessResult {
  ExitKind kind = ExitKind::SpawnFailed;
  int exit_code = -1;          // when Exited
  int signal = 0;              // when Signaled (or the signal that ended a timed-out run)
  std::string spawn_error;     // when SpawnFailed
  long long spawn_ns = 0;      // CLOCK_MONOTONIC just before posix_spawn
  double wall_s = 0;           // spawn -> reaped
  long max_rss_kib = 0;        // from wait4 rusage
  // The child's peak RSS just before its exec (getrusage in the child), while
  // it was still the copy of jitbench it was forked from: the kernel folds that
  // into the worker's wait4 ru_maxrss at exec. A max_rss_kib within
  // kPreExecSlackKib of it may be that copy's; above, it is the worker's
  // (RunRecord::process_peak_rss_kib). 0: not reported (or no exec).
  long pre_exec_rss_kib = 0;
  double user_s = 0, sys_s = 0;
  long nivcsw = 0;             // involuntary context switches (wait4 rusage)
  // CPU time of descendants that escaped the worker's group and were reaped
  // by jitbench (not in user_s/sys_s): part of the worker tree's own demand.
  double orphan_cpu_s = 0;
  std::vector<std::string> lines;  // complete lines read from the result channel
  std::string trailing;            // bytes after the last newline
  bool channel_overflow = false;
  bool interrupted = false;  // jitbench got SIGINT/SIGTERM while this ran
  // SpawnSpec::sample_machine: the snapshots around the process (nullopt when
  // not taken or unreadable) and the clock ticks per second they count in.
  std::optional<MachineSample> machine_before, machine_after;
  long ticks_per_s = 0;
};

// Interface so the case runner can be tested without spawning anything.
class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  virtual ProcessResult launch(const SpawnSpec& spec) = 0;
  // Several processes, up to `jobs` at a time (counting processes, whose
  // counts do not depend on the load; never timed ones); the results in the
  // order given. Here one after the other.
  virtual std::vector<ProcessResult> launch_all(const std::vector<SpawnSpec>& specs, int jobs);
};

class PosixLauncher final : public ProcessLauncher {
 public:
  // Makes this process a child subreaper. `cpus` (--affinity): every process
  // it starts is pinned to them (sched_setaffinity before exec, inherited by
  // the worker's own children); empty: they run where jitbench may. `sampler`
  // reads the machine around a run that asks for it (interference).
  explicit PosixLauncher(std::vector<int> cpus = {}, MachineSampler& sampler = default_machine_sampler());
  ProcessResult launch(const SpawnSpec& spec) override;
  // `jobs` threads each starting and reaping one process at a time; the
  // descendants that escaped a worker's group are ended once all are done
  // (their CPU time is then no process's: orphan_cpu_s stays 0).
  std::vector<ProcessResult> launch_all(const std::vector<SpawnSpec>& specs, int jobs) override;

 private:
  ProcessResult launch_one(const SpawnSpec& spec, bool end_orphans);
  std::vector<int> cpus_;
  MachineSampler& sampler_;
};

}  // namespace jitbench
