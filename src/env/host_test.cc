// What host.cc decides from a machine's files (a fake /proc and /sys tree):
// which CPUs' governors count, which cgroup's quota is this process's, which
// variables are thread settings, whether the hypervisor flag is set, which
// container marker is named; an absent file is none, never a guess.
// (env/doctor_test.cc judges the same facts; here they are read.)
#include "env/host.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/test_dir.h"

namespace jitbench {
namespace {

class FakeTree {
 public:
  explicit FakeTree(const std::string& name) : dir_("host-" + name) {}
  FakeTree& file(const std::string& path, const std::string& text) {
    const auto p = dir_.path() / std::filesystem::path(path).relative_path();
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return *this;
  }
  HostFacts read(std::map<std::string, std::string> env = {}) const {
    HostReadOptions r;
    r.root = dir_.path();
    r.env = std::move(env);
    r.gpus = false;
    return read_host_facts(r);
  }

 private:
  TestDir dir_;
};

std::string governor_file(int cpu) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor";
}

TEST(HostFacts, GovernorsAreThoseOfTheOnlineCpusEachOnceInOrder) {
  FakeTree t("governors");
  t.file("/sys/devices/system/cpu/online", "0-2\n");
  t.file(governor_file(0), "performance\n").file(governor_file(1), "powersave\n").file(governor_file(2), "performance\n");
  t.file(governor_file(3), "ondemand\n");  // offline: not this machine's say
  const auto h = t.read();
  EXPECT_EQ(h.machine.governors, (std::vector<std::string>{"performance", "powersave"}));
  EXPECT_EQ(h.governor, "performance");  // cpu0's, the one-line field
}

TEST(HostFacts, WithoutTheOnlineListCpu0sGovernorAloneAndNoneWithoutFiles) {
  FakeTree t("governor-cpu0");
  t.file(governor_file(0), "schedutil\n").file(governor_file(1), "powersave\n");
  EXPECT_FALSE(t.read().machine.online_cpus);
  EXPECT_EQ(t.read().machine.governors, (std::vector<std::string>{"schedutil"}));
  FakeTree empty("governor-none");
  const auto h = empty.read();
  EXPECT_TRUE(h.machine.governors.empty());
  EXPECT_EQ(h.governor, "");
}

TEST(HostFacts, TheQuotaIsThatOfThisProcesssOwnCgroupV2BeforeTheRoots) {
  FakeTree t("quota-v2");
  t.file("/proc/self/cgroup", "0::/user.slice/job\n");
  t.file("/sys/fs/cgroup/cpu.max", "max 100000\n").file("/sys/fs/cgroup/user.slice/job/cpu.max", "200000 100000\n");
  EXPECT_EQ(t.read().machine.cpu_quota, "200000 100000");
  FakeTree root_only("quota-v2-root");
  root_only.file("/proc/self/cgroup", "0::/elsewhere\n").file("/sys/fs/cgroup/cpu.max", "max 100000\n");
  EXPECT_EQ(root_only.read().machine.cpu_quota, "max 100000");  // its own has no file: the root's
}

TEST(HostFacts, AV1QuotaIsTheCpuControllersAndMinusOneIsNone) {
  FakeTree t("quota-v1");
  t.file("/proc/self/cgroup", "5:memory:/other\n3:cpuacct,cpu:/job\n");
  t.file("/sys/fs/cgroup/cpu/other/cpu.cfs_quota_us", "10000\n").file("/sys/fs/cgroup/cpu/other/cpu.cfs_period_us",
                                                                       "100000\n");
  t.file("/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "250000\n").file("/sys/fs/cgroup/cpu/job/cpu.cfs_period_us",
                                                                     "100000\n");
  EXPECT_EQ(t.read().machine.cpu_quota, "250000 100000");
  t.file("/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "-1\n");
  EXPECT_EQ(t.read().machine.cpu_quota, "max 100000");
  FakeTree half("quota-v1-half");  // a quota without its period says nothing
  half.file("/proc/self/cgroup", "3:cpu:/job\n").file("/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "50000\n");
  EXPECT_FALSE(half.read().machine.cpu_quota);
}

TEST(HostFacts, ThreadSettingsAreTheListedVariablesThatAreSetAndNoOthers) {
  FakeTree t("threads");
  const auto h = t.read({{"OMP_NUM_THREADS", "4"}, {"XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false"},
                         {"HOME", "/root"}, {"OMP_NUM_THREADS_EXTRA", "9"}});
  EXPECT_EQ(h.machine.thread_env, (std::map<std::string, std::string>{
                                      {"OMP_NUM_THREADS", "4"}, {"XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false"}}));
  EXPECT_TRUE(t.read().machine.thread_env.empty());
}

TEST(HostFacts, TheHypervisorFlagIsAWordOfTheFlagsLineAndUnknownWithoutCpuinfo) {
  FakeTree t("hypervisor");
  EXPECT_FALSE(t.read().machine.hypervisor_flag);  // no /proc/cpuinfo: not reported
  t.file("/proc/cpuinfo", "model name\t: Some CPU\nflags\t\t: fpu hypervisor_x sse2\n");
  ASSERT_TRUE(t.read().machine.hypervisor_flag);
  EXPECT_FALSE(*t.read().machine.hypervisor_flag);
  t.file("/proc/cpuinfo", "model name\t: Some CPU\nflags\t\t: fpu hypervisor sse2\n");
  EXPECT_TRUE(*t.read().machine.hypervisor_flag);
  EXPECT_EQ(t.read().cpu_model, "Some CPU");
}

TEST(HostFacts, DockersMarkerIsNamedBeforePodmansAndNoneWithout) {
  FakeTree t("container");
  EXPECT_EQ(t.read().machine.container_marker, "");
  t.file("/run/.containerenv", "");
  EXPECT_EQ(t.read().machine.container_marker, "/run/.containerenv");
  t.file("/.dockerenv", "");
  EXPECT_EQ(t.read().machine.container_marker, "/.dockerenv");
}

TEST(HostFacts, MemoryAndSwapInKibAndAnUnreadableNumberIsNone) {
  FakeTree t("memory");
  EXPECT_EQ(t.read().memory_total_kib, -1);
  t.file("/proc/meminfo", "MemTotal:       16384 kB\nMemAvailable:   8192 kB\nSwapTotal:      lots kB\n");
  const auto h = t.read();
  EXPECT_EQ(h.memory_total_kib, 16384);
  EXPECT_EQ(h.machine.mem_available_kib, 8192);
  EXPECT_FALSE(h.machine.swap_total_kib);
  EXPECT_FALSE(h.machine.swap_free_kib);
}

TEST(HostFacts, AllowedCpusOnlyFromAListTheKernelsSyntaxParses) {
  FakeTree t("allowed");
  t.file("/proc/self/status", "Name:\tx\nCpus_allowed_list:\t0-1,4\n");
  EXPECT_EQ(t.read().machine.allowed_cpus, (std::vector<int>{0, 1, 4}));
  t.file("/proc/self/status", "Name:\tx\nCpus_allowed_list:\tall of them\n");
  EXPECT_FALSE(t.read().machine.allowed_cpus);
}

TEST(HostFacts, TheOsIsItsPrettyNameUnquoted) {
  FakeTree t("os");
  t.file("/etc/os-release", "NAME=Debian\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
  EXPECT_EQ(t.read().os, "Debian GNU/Linux 12 (bookworm)");
}

}  // namespace
}  // namespace jitbench
