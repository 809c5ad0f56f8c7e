#include "env/doctor.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

#include "util/cpu_list.h"

namespace jitbench {

const char* to_string(FindingLevel level) {
  switch (level) {
    case FindingLevel::Ok: return "ok";
    case FindingLevel::Note: return "note";
    case FindingLevel::Warn: return "warn";
    case FindingLevel::NotReported: return "not_reported";
  }
  return "?";
}

namespace {
using L = FindingLevel;

long cpu_count(const HostFacts& h) {
  const auto& m = h.machine;
  return m.online_cpus && !m.online_cpus->empty() ? static_cast<long>(m.online_cpus->size()) : h.logical_cores;
}

Finding governor_check(const MachineFacts& m) {
  Finding f{"governor", L::NotReported, "no cpufreq scaling governor is exposed here (usual in VMs and containers)",
            "the host sets the clock; jitbench cannot see it", ""};
  if (m.governors.empty()) return f;
  const std::string list = fmt::format("{}", fmt::join(m.governors, ", "));
  if (m.governors == std::vector<std::string>{"performance"})
    return {"governor", L::Ok, "governor performance on every online CPU", "the clock stays at its highest", ""};
  return {"governor", L::Warn, "scaling governor " + list,
          "the clock follows the load: a short first call or import starts on a CPU that had clocked down, so "
          "cold timings depend on what ran just before",
          "sudo cpupower frequency-set --governor performance"};
}

Finding boost_check(const MachineFacts& m) {
  const char* meaning = "the clock depends on temperature and on how many cores are busy, so the same case runs "
                        "faster alone than beside other work, and faster early in a run than late";
  if (m.no_turbo && *m.no_turbo == "0")
    return {"boost", L::Warn, "turbo on (intel_pstate/no_turbo = 0)", meaning,
            "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"};
  if (m.boost && *m.boost == "1")
    return {"boost", L::Warn, "boost on (cpufreq/boost = 1)", meaning,
            "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"};
  if (m.no_turbo || m.boost)
    return {"boost", L::Ok, m.no_turbo ? "turbo off (intel_pstate/no_turbo = 1)" : "boost off (cpufreq/boost = 0)",
            "the clock does not rise above its base with temperature or idle cores", ""};
  return {"boost", L::NotReported, "neither intel_pstate/no_turbo nor cpufreq/boost is exposed here",
          "whether the CPU boosts is the host's to say", ""};
}

Finding smt_check(const MachineFacts& m) {
  if (!m.smt_active)
    return {"smt", L::NotReported, "/sys/devices/system/cpu/smt/active is absent", "unknown whether cores are shared",
            ""};
  if (*m.smt_active == "0")
    return {"smt", L::Ok,
            "SMT inactive" + (m.smt_control ? " (control: " + *m.smt_control + ")" : std::string()),
            "no two logical CPUs share a core, as far as this kernel can tell (a VM's vCPUs may still be sibling "
            "threads on the host: see the vm and steal checks)", ""};
  return {"smt", L::Note, "SMT active: two hardware threads share each core",
          "work on a worker's sibling thread slows it without showing as load on its own CPU",
          "pin workers to one thread per core with --affinity (siblings: cat "
          "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list), or echo off | sudo tee "
          "/sys/devices/system/cpu/smt/control"};
}

Finding aslr_check(const MachineFacts& m) {
  if (!m.aslr)
    return {"aslr", L::NotReported, "/proc/sys/kernel/randomize_va_space is absent", "unknown", ""};
  if (*m.aslr == "0")
    return {"aslr", L::Ok, "ASLR off (randomize_va_space = 0)", "every process gets the same address layout", ""};
  return {"aslr", L::Note, "ASLR on (randomize_va_space = " + *m.aslr + ")",
          "each cold process lays out its code and data anew, a small spread from process to process that users' "
          "processes have too; the medians over processes include it",
          "usually nothing; to remove it from an A/B of tiny effects: setarch -R jitbench run ..."};
}
}  // namespace

namespace {
std::string load_text(const HostFacts& h) {
  const auto& l = h.machine.load_avg;
  return l ? fmt::format("load average {:.2f} {:.2f} {:.2f} on {} CPUs", (*l)[0], (*l)[1], (*l)[2], cpu_count(h))
           : std::string("load average not readable");
}

Finding load_check(const HostFacts& h) {
  const auto& m = h.machine;
  const char* meaning = "other work takes CPU time from the worker and its threads wait for it: timings of the same "
                        "case drift by tens of percent from one run to the next";
  const char* action = "stop other work or measure where nothing else runs (top -o %CPU shows what is busy)";
  if (m.sample) {
    const double busy = m.sample->busy_pct;
    const L level = busy >= 25 ? L::Warn : busy >= 5 ? L::Note : L::Ok;
    return {"load", level,
            fmt::format("CPUs {:.0f}% busy over {:.2f} s; {}", busy, m.sample->seconds, load_text(h)),
            level == L::Ok ? "the CPUs are idle" : meaning, level == L::Ok ? "" : action};
  }
  if (!m.load_avg) return {"load", L::NotReported, "neither /proc/stat nor /proc/loadavg is readable", "unknown", ""};
  const double per_cpu = (*m.load_avg)[0] / static_cast<double>(std::max(1L, cpu_count(h)));
  const L level = per_cpu >= 0.5 ? L::Warn : per_cpu >= 0.1 ? L::Note : L::Ok;
  return {"load", level, load_text(h) + " (not sampled now)", level == L::Ok ? "the CPUs are idle" : meaning,
          level == L::Ok ? "" : action};
}

Finding steal_check(const MachineFacts& m) {
  if (!m.sample)
    return {"steal", L::NotReported, "steal time not sampled (/proc/stat unreadable or no interval)", "unknown", ""};
  const double steal = m.sample->steal_pct;
  const L level = steal >= 2 ? L::Warn : steal > 0 ? L::Note : L::Ok;
  return {"steal", level, fmt::format("{:.1f}% of CPU time stolen over {:.2f} s", steal, m.sample->seconds),
          level == L::Ok ? "no hypervisor took this machine's CPUs"
                         : "the hypervisor ran other guests on this machine's CPUs: a worker's wall time grows "
                           "while its own CPU time does not",
          level == L::Ok ? "" : "measure on a dedicated instance, or at another time; compare only runs with no steal"};
}

Finding swap_check(const MachineFacts& m) {
  if (!m.swap_total_kib || !m.swap_free_kib)
    return {"swap", L::NotReported, "/proc/meminfo gives no swap figures", "unknown", ""};
  const long long used = *m.swap_total_kib - *m.swap_free_kib;
  const bool short_of_memory = m.mem_available_kib && m.mem_total_kib && *m.mem_available_kib * 10 < *m.mem_total_kib;
  const std::string available =
      m.mem_available_kib ? fmt::format("; {:.0f} MiB of memory available", *m.mem_available_kib / 1024.0) : "";
  if (short_of_memory)
    return {"swap", L::Warn, fmt::format("{:.0f} MiB swapped out{}", used / 1024.0, available),
            "memory is short: a worker's imports and first call may wait for pages to come back from swap",
            "free memory (close other programs) before measuring"};
  if (used > 0)
    return {"swap", L::Note, fmt::format("{:.0f} MiB swapped out{}", used / 1024.0, available),
            "pages of other programs are on swap; a worker is slowed only if memory runs short while it runs",
            "sudo swapoff -a && sudo swapon -a brings them back (when memory allows)"};
  return {"swap", L::Ok, *m.swap_total_kib == 0 ? "no swap" : "swap configured, none in use" + available,
          "no page of a worker waits for the disk", ""};
}

Finding thp_check(const MachineFacts& m) {
  if (!m.thp_enabled)
    return {"thp", L::NotReported, "/sys/kernel/mm/transparent_hugepage/enabled is absent", "unknown", ""};
  const auto open = m.thp_enabled->find('['), close = m.thp_enabled->find(']');
  const std::string mode = open != std::string::npos && close > open
                               ? m.thp_enabled->substr(open + 1, close - open - 1) : *m.thp_enabled;
  if (mode == "always")
    return {"thp", L::Note, "transparent huge pages: always",
            "a large array's first touch may fault in a 2 MiB page or wait for compaction, so allocation in a cold "
            "process's first call varies",
            "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"};
  return {"thp", L::Ok, "transparent huge pages: " + mode, "only memory that asks for huge pages gets them", ""};
}

Finding isolated_check(const MachineFacts& m) {
  if (!m.isolated)
    return {"isolated_cpus", L::NotReported, "/sys/devices/system/cpu/isolated is absent", "unknown", ""};
  const std::string nohz = m.nohz_full && !m.nohz_full->empty() ? " (nohz_full " + *m.nohz_full + ")" : "";
  if (m.isolated->empty())
    return {"isolated_cpus", L::Note, "no CPU is isolated" + nohz,
            "the scheduler may put any other task on a worker's CPU",
            "for the quietest numbers boot with isolcpus=LIST nohz_full=LIST and run with --affinity LIST"};
  return {"isolated_cpus", L::Ok, "isolated CPUs " + *m.isolated + nohz,
          "nothing else is scheduled on them unless pinned there", "pin workers there: --affinity " + *m.isolated};
}
}  // namespace

namespace {
Finding threads_check(const HostFacts& h) {
  const auto& env = h.machine.thread_env;
  const long cpus = cpu_count(h);
  if (env.empty())
    return {"threads", L::Note, fmt::format("no thread setting (OMP_NUM_THREADS, MKL_NUM_THREADS, "
                                            "OPENBLAS_NUM_THREADS, XLA_FLAGS, ...); {} CPUs", cpus),
            "BLAS, OpenMP and the frameworks start one thread per CPU: a worker uses every CPU, so anything "
            "else that runs slows it",
            "set OMP_NUM_THREADS (and MKL_/OPENBLAS_NUM_THREADS) to fix the count, or run --deterministic for one "
            "thread; the variables are recorded in environment.json"};
  std::string list, over;
  for (const auto& [k, v] : env) {
    list += (list.empty() ? "" : ", ") + k + "=" + v;
    const bool count = k.find("THREADS") != std::string::npos;
    if (count && std::atol(v.c_str()) > cpus) over += (over.empty() ? "" : ", ") + k + "=" + v;
  }
  if (!over.empty())
    return {"threads", L::Warn, fmt::format("{} on {} CPUs", over, cpus),
            "more threads than CPUs take turns, and their spin-waits burn the time they wait",
            fmt::format("set them to {} or fewer", cpus)};
  return {"threads", L::Ok, list, "the thread counts are fixed and recorded", ""};
}

bool names_a_vm(const std::optional<std::string>& dmi) {
  static const std::array<const char*, 12> kVms = {"KVM", "QEMU", "VMware", "VirtualBox", "Virtual Machine",
                                                   "HVM domU", "Xen", "Google Compute Engine", "Amazon EC2",
                                                   "Bochs", "OpenStack", "Parallels"};
  return dmi && std::any_of(kVms.begin(), kVms.end(), [&](const char* v) { return dmi->find(v) != std::string::npos; });
}

Finding vm_check(const MachineFacts& m) {
  const bool dmi = names_a_vm(m.dmi_product) || names_a_vm(m.dmi_vendor);
  if (dmi || m.hypervisor_flag.value_or(false)) {
    std::string why = m.hypervisor_flag.value_or(false) ? "the cpuinfo hypervisor flag" : "";
    if (dmi) why += (why.empty() ? "" : ", ") + std::string("DMI '") + m.dmi_vendor.value_or("") + " " +
                    m.dmi_product.value_or("") + "'";
    return {"vm", L::Note, "a virtual machine (" + why + ")",
            "its CPUs may share physical cores with other guests: the steal check says whether they do now",
            "compare runs from the same instance type only, and watch steal"};
  }
  if (!m.hypervisor_flag && !m.dmi_product)
    return {"vm", L::NotReported, "neither /proc/cpuinfo nor /sys/class/dmi/id is readable", "unknown", ""};
  return {"vm", L::Ok, "no hypervisor flag, no virtual DMI product", "the CPUs are the machine's own", ""};
}

Finding container_check(const HostFacts& h) {
  const auto& m = h.machine;
  const std::string where = m.container_marker.empty() ? "" : "in a container (" + m.container_marker + ")";
  double quota = 0, period = 0;
  if (m.cpu_quota && std::sscanf(m.cpu_quota->c_str(), "%lf %lf", &quota, &period) == 2 && quota > 0 && period > 0) {
    const double cpus = quota / period;
    const L level = cpus < static_cast<double>(cpu_count(h)) ? L::Warn : L::Note;
    return {"container", level,
            fmt::format("{}cgroup CPU quota {:g} CPUs ({:g}/{:g} us) on {} CPUs", where.empty() ? "" : where + ", ",
                        cpus, quota, period, cpu_count(h)),
            level == L::Warn ? "a worker whose threads use more than the quota is paused until the next period "
                               "(throttling): its timings jump by whole periods"
                             : "the quota is no tighter than the CPUs",
            level == L::Warn ? "give the container whole CPUs (docker --cpuset-cpus) or set the thread count to the "
                               "quota (OMP_NUM_THREADS) and pin with --affinity"
                             : ""};
  }
  if (!where.empty())
    return {"container", L::Note, where + ", no CPU quota",
            "the CPUs are shared with the host's other containers, which the load and steal checks see", ""};
  if (!m.cpu_quota)
    return {"container", L::NotReported, "no container marker; the cgroup CPU quota is not readable", "unknown", ""};
  return {"container", L::Ok, "no container marker, no CPU quota", "nothing caps the worker's CPU time", ""};
}
}  // namespace

std::vector<Finding> machine_findings(const HostFacts& h) {
  const auto& m = h.machine;
  return {governor_check(m), boost_check(m),    smt_check(m),      aslr_check(m),
          load_check(h),     steal_check(m),    swap_check(m),     thp_check(m),
          isolated_check(m), threads_check(h),  vm_check(m),       container_check(h)};
}

bool any_warn(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.level == L::Warn; });
}

std::string affinity_problem(const std::vector<int>& cpus, const MachineFacts& m) {
  const std::string list = cpu_list_text(cpus);
  for (const int c : cpus) {
    if (m.online_cpus && !std::binary_search(m.online_cpus->begin(), m.online_cpus->end(), c))
      return fmt::format("--affinity {}: CPU {} is not online here (online CPUs: {}); give CPUs from that list",
                         list, c, cpu_list_text(*m.online_cpus));
    if (m.allowed_cpus && !std::binary_search(m.allowed_cpus->begin(), m.allowed_cpus->end(), c))
      return fmt::format("--affinity {}: CPU {} is not one jitbench may run on (allowed: {}, set by taskset or the "
                         "container's cpuset); give CPUs from that list", list, c, cpu_list_text(*m.allowed_cpus));
  }
  return "";
}

}  // namespace jitbench
