// PosixLauncher's --affinity: a process it starts runs on the CPUs given, as
// the kernel reports them (Cpus_allowed_list), and one pinned to a CPU the
// kernel refuses does not start. Its peak RSS: wait4's includes the copy of
// jitbench the child was forked from, and pre_exec_rss_kib tells them apart.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "results/model.h"
#include "run/subprocess.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {

SpawnSpec allowed_list_spec(const std::filesystem::path& dir) {
  SpawnSpec spec;
  spec.argv = {"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status >&3"};
  spec.log_path = dir / "affinity.log";
  spec.timeout = std::chrono::seconds(30);
  return spec;
}

// The highest CPU this test may run on.
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  int last = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) last = c;
  return last;
}

TEST(PosixLauncher, PinsTheProcessItStartsToTheCpusGiven) {
  TestDir dir("subprocess-affinity");
  const int cpu = last_allowed_cpu();
  PosixLauncher pinned({cpu});
  const auto r = pinned.launch(allowed_list_spec(dir.path()));
  ASSERT_EQ(r.kind, ExitKind::Exited) << r.spawn_error;
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0], "Cpus_allowed_list:\t" + std::to_string(cpu));
  PosixLauncher free_to_run;  // not pinned: it inherits this process's CPUs
  const auto f = free_to_run.launch(allowed_list_spec(dir.path()));
  ASSERT_EQ(f.lines.size(), 1u);
  if (cpu > 0) {
    EXPECT_NE(f.lines[0], r.lines[0]);
  }
}

TEST(PosixLauncher, ACpuTheKernelRefusesIsASpawnError) {
  TestDir dir("subprocess-affinity-bad");
  PosixLauncher pinned({CPU_SETSIZE - 1});  // no machine this runs on has 1024 CPUs online
  const auto r = pinned.launch(allowed_list_spec(dir.path()));
  EXPECT_EQ(r.kind, ExitKind::SpawnFailed);
  EXPECT_NE(r.spawn_error.find("Invalid argument"), std::string::npos) << r.spawn_error;
}

long own_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  return 0;
}

RunRecord peak_of(const ProcessResult& p) {
  RunRecord r;
  r.max_rss_kib = p.max_rss_kib;
  r.pre_exec_rss_kib = p.pre_exec_rss_kib;
  return r;
}

TEST(PosixLauncher, APeakRssNoLargerThanJitbenchsOwnIsNotTheWorkers) {
  TestDir dir("subprocess-rss");
  PosixLauncher launcher;
  SpawnSpec spec;
  spec.log_path = dir.path() / "rss.log";
  spec.timeout = std::chrono::seconds(60);
  // A child that touches 128 MiB more than this process holds: its own peak.
  const long before = own_kib("VmRSS:");
  ASSERT_GT(before, 0);
  spec.argv = {"dd", "if=/dev/zero", "of=/dev/null", "count=1", "bs=" + std::to_string(before + (128 << 10)) + "K"};
  const auto big = launcher.launch(spec);
  ASSERT_EQ(big.kind, ExitKind::Exited) << big.spawn_error;
  ASSERT_GT(big.pre_exec_rss_kib, 0);
  ASSERT_GT(big.max_rss_kib, big.pre_exec_rss_kib);
  EXPECT_EQ(peak_of(big).worker_peak_rss_kib(), big.max_rss_kib);
  // This process grows past the child's size; a child that holds ~nothing
  // then reads as large in wait4 (the forked copy's pages), and is not
  // reported as the worker's peak.
  const long ballast_kib = big.max_rss_kib + (64 << 10);
  std::vector<char> ballast(static_cast<std::size_t>(ballast_kib) * 1024);
  std::memset(ballast.data(), 1, ballast.size());
  ASSERT_EQ(ballast.back(), 1);
  spec.argv = {"true"};
  const auto small = launcher.launch(spec);
  ASSERT_EQ(small.kind, ExitKind::Exited) << small.spawn_error;
  EXPECT_GT(small.max_rss_kib, ballast_kib) << "wait4 no longer counts the forked copy: revisit";
  EXPECT_GE(small.pre_exec_rss_kib, ballast_kib);
  EXPECT_LE(small.max_rss_kib, small.pre_exec_rss_kib + kPreExecSlackKib);
  EXPECT_EQ(peak_of(small).worker_peak_rss_kib(), std::nullopt);
  // A case file from before pre_exec_rss_kib: the rusage as it is.
  RunRecord old;
  old.max_rss_kib = 4242;
  EXPECT_EQ(old.worker_peak_rss_kib(), 4242);
}

}  // namespace
}  // namespace jitbench
