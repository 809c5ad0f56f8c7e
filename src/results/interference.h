#pragma once
// What else the machine did while one worker process ran (docs/noise.md,
// "Interference"), and the rule that calls the process interfered with.
// The figures come from two snapshots of /proc/stat and /proc/loadavg taken
// around the process (run/machine_sample.h) and from the worker tree's own
// rusage; this file holds only the arithmetic, so it can be tested on
// synthetic snapshots.
#include <optional>
#include <string>
#include <vector>

namespace jitbench {

// The rule's constants (docs/noise.md explains each).
// Outside demand counts when it used more than this share of the CPU time the
// worker left idle ...
inline constexpr double kInterferenceIdleShare = 0.5;
// ... and more than this many CPUs' worth over the process's wall time.
inline constexpr double kInterferenceFloorCpus = 0.25;
// Steal time (a hypervisor ran someone else on our virtual CPUs) counts above
// this many CPUs' worth over the wall time.
inline constexpr double kInterferenceStealCpus = 0.05;

// One process's figures (case file: a run's "interference", jitbench.case.v5).
struct Interference {
  double other_cpu_s = 0;   // CPU time of everything but the worker tree over the interval (never below 0)
  double steal_s = 0;       // steal time over the interval, all CPUs
  long nivcsw = 0;          // the worker's involuntary context switches (rusage, children included)
  double worker_cpu_s = 0;  // the worker tree's user + system time
  double wall_s = 0;        // the process's wall time (spawn to reaped)
  std::optional<double> load_start, load_end;  // 1-minute load average; nullopt where unreadable
  int n_cpus = 0;           // online CPUs (the cpuN lines of /proc/stat)
  bool interfered = false;  // interference_rule() over the figures above
};

// Whether outside demand exceeded what the worker left idle (docs/noise.md):
//   busy     = clamp(worker_cpu_s / wall_s, 0, n_cpus)        the worker's busy CPUs, on average
//   idle_s   = (n_cpus - busy) * wall_s                        the CPU time it left to others
//   true when other_cpu_s > max(kInterferenceIdleShare * idle_s, kInterferenceFloorCpus * wall_s) + resolution_s
//          or steal_s     > kInterferenceStealCpus * wall_s + resolution_s
// resolution_s: the snapshots' granularity (one clock tick per CPU).
bool interference_rule(double other_cpu_s, double steal_s, double worker_cpu_s, double wall_s, int n_cpus,
                       double resolution_s);

// Why recorded figures cannot be a process's (the reader's check, results/read.cc),
// or "" when they can: a negative figure, a process with no CPU, or an
// `interfered` flag the rule contradicts at every granularity a machine can
// have (true where the rule says no even with none, false where it says yes
// even at the slowest clock's, kSlowestTicksPerS).
inline constexpr double kSlowestTicksPerS = 10;
inline constexpr double kSampleSlackTicks = 2;
std::string interference_impossible(const Interference& x);

// Others' CPU and steal capped at the machine's capacity over the process's
// wall time (n_cpus * wall_s, beyond the snapshots' granularity:
// kSampleSlackTicks ticks per CPU at the slowest clock), as the sampler caps
// them since it brackets the process from spawn to reap: a run written before
// (its snapshots' interval longer than the process, or injected ones) is read
// as it would be written now, not refused. True when a figure was capped.
bool cap_to_capacity(Interference& x);

// How much the machine was used by others while a process ran, in three
// grades (docs/noise.md, "Grades"):
//   quiet      not interfered with (the rule above);
//   contended  others took kContendedMachineShare of the machine's CPUs or
//              more, or steal reached kContendedStealCpus;
//   busy       interfered with, but not contended.
enum class InterferenceGrade { Quiet = 0, Busy = 1, Contended = 2 };
inline constexpr double kContendedMachineShare = 0.75;
inline constexpr double kContendedStealCpus = 0.25;

// "quiet", "busy", "contended".
const char* grade_name(InterferenceGrade g);
// A process's grade from its recorded figures (quiet wherever its
// `interfered` flag is false, so the grade never contradicts the flag).
InterferenceGrade interference_grade(const Interference& x);
// The CPUs everything but the worker took on average over the process's wall
// time (other_cpu_s / wall_s; 0 for a zero wall time).
double others_cpus(const Interference& x);

// How many of a list of runs were interfered with: total runs, the runs whose
// interference was measured (the rest: "not reported"), those flagged, and
// the grades and others' CPUs of the reported ones.
struct InterferenceShare {
  int runs = 0, reported = 0, interfered = 0;
  int quiet = 0, busy = 0, contended = 0;  // reported runs per grade (interfered == busy + contended)
  std::vector<double> others_cpus;         // per reported run
  int n_cpus = 0;                          // the largest CPU count among the reported runs
  bool any() const { return interfered > 0; }
  // The grade of the set: the upper median of its runs' grades (a lone
  // disturbed process among quiet ones leaves the set quiet, as it leaves the
  // median and the rank test nearly unmoved); nullopt when none was reported.
  std::optional<InterferenceGrade> grade() const;
  // Whether every run of the set was reported and none interfered with: what
  // a gate may trust without measuring again (a minority of disturbed
  // processes leaves the grade quiet, not the set untouched).
  bool all_quiet() const { return reported > 0 && reported >= runs && interfered == 0; }
  std::optional<double> others_cpus_median() const;
  // "quiet", "busy (others 1.1 of 2 CPUs)", "contended (others 1.7 of 2
  // CPUs)", "not reported".
  std::string grade_text() const;
  InterferenceShare& operator+=(const InterferenceShare& o);
  void add(const Interference& x);
};

}  // namespace jitbench
