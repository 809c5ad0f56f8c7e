// `jitbench doctor`'s checks against a fake /proc and /sys tree: each check at
// each of its levels, and an absent file reported as not reported, never
// guessed. The CPU-list syntax of --affinity and of the kernel's files too.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "env/doctor.h"
#include "env/host.h"
#include "util/cpu_list.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {

// A tree that starts with no file at all: every check not reported.
class FakeHost {
 public:
  explicit FakeHost(const std::string& name) : dir_("doctor-" + name) {}
  FakeHost& file(const std::string& path, const std::string& text) {
    const auto p = dir_.path() / std::filesystem::path(path).relative_path();
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return *this;
  }
  // The findings by check, read with these thread variables.
  std::map<std::string, Finding> findings(std::map<std::string, std::string> env = {}) const {
    HostReadOptions r;
    r.root = dir_.path();
    r.env = std::move(env);
    r.gpus = false;
    std::map<std::string, Finding> out;
    for (auto& f : machine_findings(read_host_facts(r))) out[f.check] = f;
    return out;
  }
  MachineFacts facts() const {
    HostReadOptions r;
    r.root = dir_.path();
    r.env = std::map<std::string, std::string>{};
    r.gpus = false;
    return read_host_facts(r).machine;
  }

 private:
  TestDir dir_;
};

FindingLevel level(const FakeHost& h, const std::string& check, std::map<std::string, std::string> env = {}) {
  return h.findings(std::move(env)).at(check).level;
}

constexpr auto kOk = FindingLevel::Ok;
constexpr auto kNote = FindingLevel::Note;
constexpr auto kWarn = FindingLevel::Warn;
constexpr auto kNone = FindingLevel::NotReported;

TEST(Doctor, AnEmptyTreeReportsNothingItCannotRead) {
  FakeHost h("empty");
  const auto f = h.findings({{"OMP_NUM_THREADS", "1"}});
  ASSERT_EQ(f.size(), 12u);
  for (const char* check : {"governor", "boost", "smt", "aslr", "load", "steal", "swap", "thp", "isolated_cpus", "vm",
                            "container"})
    EXPECT_EQ(f.at(check).level, kNone) << check;
  EXPECT_EQ(f.at("threads").level, kOk);  // the variables are not a file
  std::vector<Finding> all;
  for (const auto& [check, finding] : f) all.push_back(finding);
  EXPECT_FALSE(any_warn(all));
}

TEST(Doctor, GovernorOfEveryOnlineCpu) {
  FakeHost h("governor");
  h.file("/sys/devices/system/cpu/online", "0-1\n")
      .file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n")
      .file("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
  EXPECT_EQ(level(h, "governor"), kOk);
  h.file("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");  // cpu0 alone would miss it
  const auto f = h.findings().at("governor");
  EXPECT_EQ(f.level, kWarn);
  EXPECT_NE(f.found.find("performance, powersave"), std::string::npos) << f.found;
  EXPECT_NE(f.action.find("cpupower frequency-set --governor performance"), std::string::npos);
}

TEST(Doctor, BoostFromIntelPstateOrCpufreq) {
  FakeHost h("boost");
  h.file("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
  EXPECT_EQ(level(h, "boost"), kOk);
  h.file("/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
  EXPECT_EQ(level(h, "boost"), kWarn);
  FakeHost amd("boost-amd");
  amd.file("/sys/devices/system/cpu/cpufreq/boost", "0\n");
  EXPECT_EQ(level(amd, "boost"), kOk);
  amd.file("/sys/devices/system/cpu/cpufreq/boost", "1\n");
  EXPECT_EQ(level(amd, "boost"), kWarn);
  EXPECT_NE(amd.findings().at("boost").action.find("cpufreq/boost"), std::string::npos);
}

TEST(Doctor, SmtAslrThpAndIsolatedCpus) {
  FakeHost h("knobs");
  h.file("/sys/devices/system/cpu/smt/active", "0\n").file("/sys/devices/system/cpu/smt/control", "notsupported\n");
  h.file("/proc/sys/kernel/randomize_va_space", "0\n");
  h.file("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
  h.file("/sys/devices/system/cpu/isolated", "2-3\n");
  auto f = h.findings();
  EXPECT_EQ(f.at("smt").level, kOk);
  EXPECT_EQ(f.at("aslr").level, kOk);
  EXPECT_EQ(f.at("thp").level, kOk);
  EXPECT_EQ(f.at("thp").found, "transparent huge pages: madvise");
  EXPECT_EQ(f.at("isolated_cpus").level, kOk);
  EXPECT_NE(f.at("isolated_cpus").action.find("--affinity 2-3"), std::string::npos);
  h.file("/sys/devices/system/cpu/smt/active", "1\n");
  h.file("/proc/sys/kernel/randomize_va_space", "2\n");
  h.file("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
  h.file("/sys/devices/system/cpu/isolated", "\n");  // present and empty: none isolated
  f = h.findings();
  EXPECT_EQ(f.at("smt").level, kNote);
  EXPECT_EQ(f.at("aslr").level, kNote);
  EXPECT_EQ(f.at("thp").level, kNote);
  EXPECT_EQ(f.at("isolated_cpus").level, kNote);
}

TEST(Doctor, LoadFromTheLoadAverageWhenNotSampled) {
  FakeHost h("load");
  h.file("/sys/devices/system/cpu/online", "0-3\n");
  h.file("/proc/loadavg", "0.10 0.20 0.30 1/100 42\n");
  EXPECT_EQ(level(h, "load"), kOk);
  h.file("/proc/loadavg", "1.00 0.20 0.30 1/100 42\n");  // a quarter of 4 CPUs
  EXPECT_EQ(level(h, "load"), kNote);
  h.file("/proc/loadavg", "3.50 2.00 1.00 5/100 42\n");
  const auto f = h.findings().at("load");
  EXPECT_EQ(f.level, kWarn);
  EXPECT_NE(f.found.find("load average 3.50 2.00 1.00 on 4 CPUs (not sampled now)"), std::string::npos) << f.found;
  // /proc/stat that does not move over the interval: no sample, so steal is not reported.
  EXPECT_EQ(level(h, "steal"), kNone);
}

TEST(Doctor, ASampleOfProcStatGivesBusyAndStealShares) {
  // user nice system idle iowait irq softirq steal: 100 ticks go by, 30 busy of which 5 stolen.
  const auto s = cpu_sample_of("cpu  100 0 50 1000 10 0 0 0 0 0\n", "cpu  120 0 55 1070 10 0 0 5 0 0\n", 0.5);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->busy_pct, 30);
  EXPECT_DOUBLE_EQ(s->steal_pct, 5);
  EXPECT_FALSE(cpu_sample_of("cpu  1 2 3 4 5 6 7 8\n", "cpu  1 2 3 4 5 6 7 8\n", 0.5));  // no tick
  EXPECT_FALSE(cpu_sample_of("", "cpu  1 2 3 4 5 6 7 8\n", 0.5));
}

TEST(Doctor, SampledLoadAndStealAtEachLevel) {
  HostFacts h;
  h.logical_cores = 2;
  const auto at = [&](double busy, double steal) {
    h.machine.sample = CpuSample{0.5, busy, steal};
    std::map<std::string, FindingLevel> out;
    for (const auto& f : machine_findings(h)) out[f.check] = f.level;
    return std::pair{out.at("load"), out.at("steal")};
  };
  EXPECT_EQ(at(1, 0), std::pair(kOk, kOk));
  EXPECT_EQ(at(10, 0.5), std::pair(kNote, kNote));
  EXPECT_EQ(at(60, 3), std::pair(kWarn, kWarn));
}

TEST(Doctor, SwapInUseAndMemoryShortage) {
  FakeHost h("swap");
  h.file("/proc/meminfo", "MemTotal: 1000000 kB\nMemAvailable: 800000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
  EXPECT_EQ(level(h, "swap"), kOk);
  h.file("/proc/meminfo", "MemTotal: 1000000 kB\nMemAvailable: 800000 kB\nSwapTotal: 2048 kB\nSwapFree: 1024 kB\n");
  EXPECT_EQ(level(h, "swap"), kNote);
  h.file("/proc/meminfo", "MemTotal: 1000000 kB\nMemAvailable: 50000 kB\nSwapTotal: 2048 kB\nSwapFree: 1024 kB\n");
  EXPECT_EQ(level(h, "swap"), kWarn);
  EXPECT_EQ(h.facts().swap_free_kib, 1024);
}

TEST(Doctor, ThreadSettingsNoneFixedOrOversubscribed) {
  FakeHost h("threads");
  h.file("/sys/devices/system/cpu/online", "0-1\n");
  EXPECT_EQ(level(h, "threads"), kNote);
  EXPECT_EQ(level(h, "threads", {{"OMP_NUM_THREADS", "2"}, {"XLA_FLAGS", "--xla_force_host_platform_device_count=1"}}),
            kOk);
  const auto f = h.findings({{"OPENBLAS_NUM_THREADS", "8"}}).at("threads");
  EXPECT_EQ(f.level, kWarn);
  EXPECT_EQ(f.found, "OPENBLAS_NUM_THREADS=8 on 2 CPUs");
}

TEST(Doctor, VirtualMachineFromDmiOrTheHypervisorFlag) {
  FakeHost h("vm");
  h.file("/proc/cpuinfo", "model name\t: Some CPU\nflags\t\t: fpu sse2 avx2\n");
  EXPECT_EQ(level(h, "vm"), kOk);
  h.file("/proc/cpuinfo", "model name\t: Some CPU\nflags\t\t: fpu sse2 hypervisor avx2\n");
  EXPECT_EQ(level(h, "vm"), kNote);
  FakeHost dmi("vm-dmi");
  dmi.file("/sys/class/dmi/id/product_name", "KVM\n").file("/sys/class/dmi/id/sys_vendor", "QEMU\n");
  const auto f = dmi.findings().at("vm");
  EXPECT_EQ(f.level, kNote);
  EXPECT_NE(f.found.find("QEMU KVM"), std::string::npos) << f.found;
}

TEST(Doctor, ContainerQuotaFromCgroupV2OrV1) {
  FakeHost h("container");
  h.file("/sys/devices/system/cpu/online", "0-3\n").file("/proc/self/cgroup", "0::/box\n");
  h.file("/sys/fs/cgroup/box/cpu.max", "max 100000\n");
  EXPECT_EQ(level(h, "container"), kOk);
  h.file("/.dockerenv", "");
  EXPECT_EQ(level(h, "container"), kNote);
  h.file("/sys/fs/cgroup/box/cpu.max", "150000 100000\n");  // 1.5 CPUs of 4
  const auto f = h.findings().at("container");
  EXPECT_EQ(f.level, kWarn);
  EXPECT_NE(f.found.find("quota 1.5 CPUs"), std::string::npos) << f.found;
  FakeHost v1("container-v1");
  v1.file("/sys/devices/system/cpu/online", "0-1\n").file("/proc/self/cgroup", "3:cpu,cpuacct:/job\n0::/\n");
  v1.file("/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "50000\n").file("/sys/fs/cgroup/cpu/job/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(level(v1, "container"), kWarn);
  EXPECT_EQ(v1.facts().cpu_quota, "50000 100000");
  v1.file("/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "-1\n");
  EXPECT_EQ(v1.facts().cpu_quota, "max 100000");
  EXPECT_EQ(level(v1, "container"), kOk);
}

TEST(Doctor, AffinityIsCheckedAgainstOnlineAndAllowedCpus) {
  FakeHost h("affinity");
  h.file("/sys/devices/system/cpu/online", "0-3\n").file("/proc/self/status", "Name:\tx\nCpus_allowed_list:\t0-1\n");
  const auto m = h.facts();
  EXPECT_EQ(affinity_problem({0, 1}, m), "");
  EXPECT_EQ(affinity_problem({0, 7}, m),
            "--affinity 0,7: CPU 7 is not online here (online CPUs: 0-3); give CPUs from that list");
  EXPECT_NE(affinity_problem({2}, m).find("CPU 2 is not one jitbench may run on (allowed: 0-1"), std::string::npos);
  EXPECT_EQ(affinity_problem({}, m), "");
}

TEST(CpuList, ParsesTheKernelsSyntaxAndRefusesAnythingElse) {
  EXPECT_EQ(std::get<std::vector<int>>(parse_cpu_list("0,2-3")), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(std::get<std::vector<int>>(parse_cpu_list("3,1-2,2\n")), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(std::get<std::vector<int>>(parse_cpu_list("")), std::vector<int>{});
  for (const char* bad : {"a", "1-", "-1", "3-1", "0,,1", "0,", "1.5", "99999", "1024"})
    EXPECT_TRUE(std::holds_alternative<std::string>(parse_cpu_list(bad))) << bad;
  EXPECT_EQ(cpu_list_text({0, 2, 3, 4, 7}), "0,2-4,7");
  EXPECT_EQ(cpu_list_text({}), "");
}

}  // namespace
}  // namespace jitbench
