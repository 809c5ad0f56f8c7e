// PosixLauncher's --affinity: a process it starts runs on the CPUs given, as
// the kernel reports them (Cpus_allowed_list), and one pinned to a CPU the
// kernel refuses does not start.
#include <gtest/gtest.h>
#include <sched.h>

#include <string>

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
  if (cpu > 0) EXPECT_NE(f.lines[0], r.lines[0]);
}

TEST(PosixLauncher, ACpuTheKernelRefusesIsASpawnError) {
  TestDir dir("subprocess-affinity-bad");
  PosixLauncher pinned({CPU_SETSIZE - 1});  // no machine this runs on has 1024 CPUs online
  const auto r = pinned.launch(allowed_list_spec(dir.path()));
  EXPECT_EQ(r.kind, ExitKind::SpawnFailed);
  EXPECT_NE(r.spawn_error.find("Invalid argument"), std::string::npos) << r.spawn_error;
}

}  // namespace
}  // namespace jitbench
