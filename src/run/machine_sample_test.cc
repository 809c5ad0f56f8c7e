#include "run/machine_sample.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "results/crosscheck.h"
#include "results/model.h"
#include "run/classify.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {

// A /proc/stat of a 2-CPU machine: the aggregate line holds the ticks given
// (user nice system idle iowait irq softirq steal), the cpuN lines are counted.
std::string proc_stat(std::uint64_t user, std::uint64_t idle, std::uint64_t steal = 0, int n_cpus = 2) {
  std::string s = "cpu  " + std::to_string(user) + " 0 0 " + std::to_string(idle) + " 0 0 0 " +
                  std::to_string(steal) + " 0 0\n";
  for (int i = 0; i < n_cpus; ++i) s += "cpu" + std::to_string(i) + " 1 0 0 1 0 0 0 0 0 0\n";
  return s + "intr 1 2 3\nctxt 42\nbtime 1\nprocs_running 1\n";
}

MachineSample sample(const std::string& stat, double load = 0.5) { return {*parse_proc_stat(stat), load}; }

// One process of wall 1 s on 2 CPUs (100 ticks a second): the machine's busy
// ticks go up by busy_ticks, steal by steal_ticks; the worker used worker_cpu_s.
std::optional<Interference> one_second(std::uint64_t busy_ticks, double worker_cpu_s, std::uint64_t steal_ticks = 0,
                                       int n_cpus = 2) {
  const auto idle = static_cast<std::uint64_t>(100 * n_cpus) - busy_ticks - steal_ticks;
  return measure_interference(sample(proc_stat(1000, 5000, 10, n_cpus)),
                              sample(proc_stat(1000 + busy_ticks, 5000 + idle, 10 + steal_ticks, n_cpus), 1.5),
                              worker_cpu_s, 1.0, 7, 100);
}

// Pinned (--affinity): only the pinned CPUs' lines count, so a hog on another
// CPU is no interference and one on the worker's own CPU is.
TEST(ProcStat, APinnedWorkerIsJudgedOnItsOwnCpus) {
  // Counters after `ticks` ticks of each CPU, `busy0` and `busy1` of them busy.
  const auto snap = [](int busy0, int busy1, int ticks = 100) {
    return fmt::format("cpu  {} 0 0 {} 0 0 0 0 0 0\ncpu0 {} 0 0 {} 0 0 0 0 0 0\ncpu1 {} 0 0 {} 0 0 0 0 0 0\n",
                       busy0 + busy1, 2 * ticks - busy0 - busy1, busy0, ticks - busy0, busy1, ticks - busy1);
  };
  const auto one = parse_proc_stat(snap(30, 5), {1});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->busy, 5u);
  EXPECT_EQ(one->n_cpus, 1);
  EXPECT_FALSE(parse_proc_stat(snap(30, 5), {7}));  // a pinned CPU the snapshot lacks: not reported
  // A worker pinned to cpu1 using 0.5 s of a 1 s wall; a build using cpu0 the whole second.
  const auto judge = [&](int hog0, int hog1, std::vector<int> pinned) {
    const MachineSample before{*parse_proc_stat(snap(0, 0, 0), pinned), std::nullopt};
    const MachineSample after{*parse_proc_stat(snap(hog0, 50 + hog1), pinned), std::nullopt};
    const auto x = measure_interference(before, after, 0.5, 1.0, 0, 100);
    EXPECT_TRUE(x.has_value());
    return x.has_value() && x->interfered;
  };
  EXPECT_TRUE(judge(100, 0, {}));     // unpinned: the other CPU's hog is the machine's
  EXPECT_FALSE(judge(100, 0, {1}));   // pinned to cpu1: cpu0's hog never competed
  EXPECT_TRUE(judge(0, 45, {1}));     // pinned, and something else ran on cpu1 beside it
}

TEST(ProcStat, ParsesTheAggregateLineAndCountsTheCpus) {
  const auto t = parse_proc_stat("cpu  10 2 3 400 5 6 7 8 9 1\ncpu0 1 1 1 1 1 1 1 1 1 1\ncpu1 1 1 1 1 1 1 1 1 1 1\n"
                                 "cpu2 1 1 1 1 1 1 1 1 1 1\nintr 0\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->busy, 10u + 2 + 3 + 6 + 7);  // user nice system irq softirq: guest is inside user already
  EXPECT_EQ(t->idle, 405u);                 // idle + iowait
  EXPECT_EQ(t->steal, 8u);
  EXPECT_EQ(t->n_cpus, 3);
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\ncpu0 1 2 3 4 5 6 7 8\n"));  // too few fields
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4 5 6 7 8\n"));              // no cpuN line
  EXPECT_EQ(parse_loadavg("2.53 1.20 0.80 3/512 4242\n"), 2.53);
  EXPECT_FALSE(parse_loadavg("garbage"));
}

TEST(InterferenceRule, AQuietMachineIsNotInterference) {
  // A single-threaded worker (0.95 s of CPU in 1 s) and 5 ticks of daemons.
  const auto x = one_second(100, 0.95);
  ASSERT_TRUE(x);
  EXPECT_NEAR(x->other_cpu_s, 0.05, 1e-9);
  EXPECT_FALSE(x->interfered);
  EXPECT_EQ(x->n_cpus, 2);
  EXPECT_EQ(x->nivcsw, 7);
  EXPECT_EQ(x->load_start, 0.5);
  EXPECT_EQ(x->load_end, 1.5);
}

TEST(InterferenceRule, AHogOnTheCoreTheWorkerLeftIdleIsInterference) {
  // The worker used 0.9 s; everything else 0.95 s: the other CPU was busy.
  const auto x = one_second(185, 0.9);
  ASSERT_TRUE(x);
  EXPECT_NEAR(x->other_cpu_s, 0.95, 1e-9);
  EXPECT_TRUE(x->interfered);
  // A sleeping worker and one hog on each CPU.
  EXPECT_TRUE(one_second(198, 0.0)->interfered);
}

TEST(InterferenceRule, AWorkerUsingEveryCoreItselfIsNotInterference) {
  // 1.96 s of CPU in 1 s on 2 CPUs: the 2 ticks of others are no contention.
  const auto x = one_second(198, 1.96);
  ASSERT_TRUE(x);
  EXPECT_FALSE(x->interfered);
  // ... but when it got only 1.2 s because something else took 0.75 s, it is.
  EXPECT_TRUE(one_second(195, 1.2)->interfered);
}

TEST(InterferenceRule, StealTimeIsInterference) {
  const auto x = one_second(100, 0.95, 20);  // the hypervisor took 0.2 s
  ASSERT_TRUE(x);
  EXPECT_NEAR(x->steal_s, 0.2, 1e-9);
  EXPECT_TRUE(x->interfered);
  EXPECT_FALSE(one_second(100, 0.95, 1)->interfered);  // one tick is the snapshots' resolution
}

TEST(InterferenceRule, TheBoundsAreThoseOfTheDocs) {
  // 2 CPUs, 1 s, worker busy 1 CPU: idle 1 s; the bound is max(0.5 * 1, 0.25) + 0.02.
  EXPECT_FALSE(interference_rule(0.51, 0, 1.0, 1.0, 2, 0.02));
  EXPECT_TRUE(interference_rule(0.53, 0, 1.0, 1.0, 2, 0.02));
  // 64 CPUs, one busy: 31.5 CPUs of others go unflagged (docs/noise.md, limits).
  EXPECT_FALSE(interference_rule(31.0, 0, 1.0, 1.0, 64, 0.64));
  EXPECT_TRUE(interference_rule(33.0, 0, 1.0, 1.0, 64, 0.64));
  EXPECT_FALSE(interference_rule(5, 5, 1.0, 0.0, 2, 0.02));  // no wall time: nothing to judge
}

TEST(InterferenceRule, WithoutBothSnapshotsItIsNotReportedNeverQuiet) {
  const auto s = sample(proc_stat(10, 10));
  EXPECT_FALSE(measure_interference(std::nullopt, s, 0.1, 1.0, 0, 100));
  EXPECT_FALSE(measure_interference(s, std::nullopt, 0.1, 1.0, 0, 100));
  // A CPU went offline, or a counter went backwards: not comparable.
  EXPECT_FALSE(measure_interference(s, sample(proc_stat(20, 20, 0, 3)), 0.1, 1.0, 0, 100));
  EXPECT_FALSE(measure_interference(sample(proc_stat(20, 20)), s, 0.1, 1.0, 0, 100));
}

// Snapshots that claim more CPU time than the machine had over the process
// (an injected hog of 1000 s beside a process of 1 s) are capped at the
// machine's capacity: a figure a process can have, still contended.
TEST(ProcStat, FiguresBeyondTheMachinesCapacityAreCapped) {
  const auto x = measure_interference(sample(proc_stat(1000, 5000, 10)),
                                      sample(proc_stat(101000, 5000, 50010)), 0.5, 1.0, 0, 100);
  ASSERT_TRUE(x);
  EXPECT_NEAR(x->other_cpu_s, 2.02, 1e-9);
  EXPECT_NEAR(x->steal_s, 2.02, 1e-9);
  EXPECT_TRUE(x->interfered);
  EXPECT_EQ(interference_grade(*x), InterferenceGrade::Contended);
  EXPECT_EQ(interference_impossible(*x), "");
}

TEST(ProcSampler, ReadsTheInjectedSequenceAndReportsAMissingSnapshotAsNone) {
  TestDir dir("machine-samples");
  std::ofstream(dir.path() / "stat.0") << proc_stat(100, 100);
  std::ofstream(dir.path() / "loadavg.0") << "0.25 0.1 0.1 1/1 1\n";
  std::ofstream(dir.path() / "stat.1") << "not a stat file\n";
  ::setenv("JITBENCH_TEST_MACHINE_SAMPLES", dir.path().c_str(), 1);
  ProcSampler sampler;
  ::unsetenv("JITBENCH_TEST_MACHINE_SAMPLES");
  const auto first = sampler.sample({});
  ASSERT_TRUE(first);
  EXPECT_EQ(first->cpu.busy, 100u);
  EXPECT_EQ(first->load1, 0.25);
  EXPECT_FALSE(sampler.sample({}));  // unreadable
  EXPECT_FALSE(sampler.sample({}));  // missing
  ProcSampler real;                // /proc itself, where there is one
  if (std::ifstream("/proc/stat")) {
    EXPECT_TRUE(real.sample({}));
  }
}

// classify_run turns the launcher's snapshots into the run's figures; a
// process that never started has none.
TEST(InterferenceRule, ClassifyRecordsTheFiguresBesideTheStatus) {
  ProcessResult p;
  p.kind = ExitKind::Exited;
  p.exit_code = 3;
  p.wall_s = 1.0;
  p.user_s = 0.5;
  p.sys_s = 0.1;
  p.orphan_cpu_s = 0.2;
  p.machine_before = sample(proc_stat(0, 0));
  p.machine_after = sample(proc_stat(190, 10));
  p.ticks_per_s = 100;
  const auto r = classify_run(p, RunRequest{});
  EXPECT_EQ(r.status, Status::Failed);  // the status is the exit's, whatever the machine did
  ASSERT_TRUE(r.interference);
  EXPECT_NEAR(r.interference->worker_cpu_s, 0.8, 1e-9);  // escaped descendants count as the worker's
  EXPECT_NEAR(r.interference->other_cpu_s, 1.1, 1e-9);
  EXPECT_TRUE(r.interference->interfered);
  p.kind = ExitKind::SpawnFailed;
  EXPECT_FALSE(classify_run(p, RunRequest{}).interference);
}

// A cross-check that disagrees on an interfered run does not warn the case.
TEST(InterferenceRule, ACrosscheckDisagreementOnAnInterferedRunIsNotAWarning) {
  CaseResult c;
  RunRecord cold;
  cold.status = Status::Ok;
  cold.worker = parse_worker_report({{"first_call", {{"phases", {{"compile", 0.01}}}, {"phase_names", {"compile"}}}}});
  c.cold = {cold, cold};
  RunRecord aot;
  aot.mode = RunMode::Aot;
  aot.status = Status::Ok;
  aot.worker = parse_worker_report({{"aot", {{"compile_s", 0.5}}}});
  Interference busy;
  busy.interfered = true;
  aot.interference = busy;
  c.crosscheck = aot;
  settle_status(c);
  EXPECT_EQ(c.status, Status::Ok) << c.detail;
  EXPECT_TRUE(crosscheck(c)->interfered);
  c.crosscheck->interference->interfered = false;  // a quiet AOT process, one interfered cold run of two
  c.cold[0].interference = busy;
  settle_status(c);
  EXPECT_EQ(to_string(c.reason), "crosscheck_disagrees");
  c.cold[1].interference = busy;  // every cold run compared was interfered with
  settle_status(c);
  EXPECT_EQ(c.status, Status::Ok);
}

}  // namespace
}  // namespace jitbench
