#include "env/host.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <variant>

#include "util/fs.h"
#include "util/cpu_list.h"


extern char** environ;

namespace jitbench {
namespace {
namespace fs = std::filesystem;

// A path below the root: "/proc/stat" under "/tmp/fake" is "/tmp/fake/proc/stat".
fs::path host_path(const fs::path& root, const std::string& abs) { return root / fs::path(abs).relative_path(); }

// The lines of a file of the system (util/fs.h read_capped: regular files
// only, never waited on, at most 4 MiB): a FIFO or /dev/zero planted below
// --root is "not reported", never a hang.
std::istringstream system_file(const fs::path& path) { return std::istringstream(read_capped(path).value_or("")); }

// The file's first line without trailing blanks; none when it cannot be read.
std::optional<std::string> read_line(const fs::path& path) {
  const auto text = read_capped(path);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string first_line(const fs::path& path) { return read_line(path).value_or(""); }

std::string value_after_colon(const fs::path& path, const std::string& key) {
  auto in = system_file(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      auto v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

std::optional<long long> kib_after_colon(const fs::path& path, const std::string& key) {
  const auto v = value_after_colon(path, key + ":");
  if (v.empty()) return std::nullopt;
  try {
    return std::stoll(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string os_pretty_name(const fs::path& root) {
  auto in = system_file(host_path(root, "/etc/os-release"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      auto v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "";
}
// nvidia-smi's view of the GPUs.
std::vector<GpuDevice> gpus() {
  const char* cmd =
      "nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,persistence_mode "
      "--format=csv,noheader,nounits 2>/dev/null";
  std::vector<GpuDevice> devices;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd, "r"), pclose);
  if (pipe) {
    std::array<char, 512> buf{};
    while (fgets(buf.data(), buf.size(), pipe.get())) {
      std::vector<std::string> f;
      std::stringstream ss(buf.data());
      std::string item;
      while (std::getline(ss, item, ',')) {
        item.erase(0, item.find_first_not_of(' '));
        while (!item.empty() && (item.back() == '\n' || item.back() == ' ')) item.pop_back();
        f.push_back(item);
      }
      if (f.size() >= 6) devices.push_back({f[0], f[1], f[2], f[3], f[4], f[5]});
    }
  }
  return devices;
}

std::optional<std::vector<int>> cpu_list_at(const fs::path& path) {
  const auto text = read_line(path);
  if (!text) return std::nullopt;
  auto parsed = parse_cpu_list(*text);
  if (auto* cpus = std::get_if<std::vector<int>>(&parsed)) return *cpus;
  return std::nullopt;
}

// The distinct scaling governors of the online CPUs (cpu0's alone when the online list is unknown).
std::vector<std::string> governors_of(const fs::path& root, const std::vector<int>& online) {
  std::vector<std::string> out;
  for (const int cpu : online.empty() ? std::vector<int>{0} : online) {
    const auto g = read_line(host_path(root, "/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                                             "/cpufreq/scaling_governor"));
    if (g && !g->empty() && std::find(out.begin(), out.end(), *g) == out.end()) out.push_back(*g);
  }
  return out;
}

// "/path" of this process's cgroup: the v2 line ("0::/path"), or the v1 line of the cpu controller.
std::string cgroup_path(const fs::path& root, bool v2) {
  auto in = system_file(host_path(root, "/proc/self/cgroup"));
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    if (v2 ? controllers == ",," : controllers.find(",cpu,") != std::string::npos) return line.substr(b + 1);
  }
  return "";
}

// The CPU quota of this process's cgroup as "QUOTA PERIOD" (microseconds; "max PERIOD": no quota).
std::optional<std::string> cpu_quota(const fs::path& root) {
  const std::string v2 = cgroup_path(root, true), v1 = cgroup_path(root, false);
  for (const auto& dir : {"/sys/fs/cgroup" + v2, std::string("/sys/fs/cgroup")})
    if (auto max = read_line(host_path(root, dir + "/cpu.max"))) return max;
  for (const auto& dir : {"/sys/fs/cgroup/cpu" + v1, std::string("/sys/fs/cgroup/cpu"),
                          std::string("/sys/fs/cgroup/cpu,cpuacct")}) {
    const auto quota = read_line(host_path(root, dir + "/cpu.cfs_quota_us"));
    const auto period = read_line(host_path(root, dir + "/cpu.cfs_period_us"));
    if (quota && period) return (quota->rfind('-', 0) == 0 ? std::string("max") : *quota) + " " + *period;
  }
  return std::nullopt;
}

// The "cpu" line of /proc/stat: {busy, steal, total} in clock ticks.
std::optional<std::array<double, 3>> cpu_ticks(const std::string& stat) {
  std::istringstream in(stat);
  std::string label;
  double f[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // user nice system idle iowait irq softirq steal
  if (!(in >> label) || label != "cpu") return std::nullopt;
  for (double& x : f)
    if (!(in >> x)) return std::nullopt;
  const double busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  return std::array<double, 3>{busy, f[7], busy + f[3] + f[4]};
}

std::string stat_text(const fs::path& root) { return read_capped(host_path(root, "/proc/stat")).value_or(""); }

std::optional<CpuSample> sample_cpus(const fs::path& root, int ms) {
  if (ms <= 0) return std::nullopt;
  const std::string before = stat_text(root);
  const long long t0 = monotonic_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return cpu_sample_of(before, stat_text(root), static_cast<double>(monotonic_ns() - t0) / 1e9);
}

std::map<std::string, std::string> thread_settings(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& name : thread_variables())
    if (auto it = env.find(name); it != env.end()) out[name] = it->second;
  return out;
}

std::map<std::string, std::string> process_env() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv(*e);
    if (const auto eq = kv.find('='); eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

void read_cpu_facts(const fs::path& root, MachineFacts& m) {
  const std::string cpu = "/sys/devices/system/cpu";
  m.online_cpus = cpu_list_at(host_path(root, cpu + "/online"));
  const auto allowed = value_after_colon(host_path(root, "/proc/self/status"), "Cpus_allowed_list");
  if (auto parsed = parse_cpu_list(allowed); !allowed.empty() && std::holds_alternative<std::vector<int>>(parsed))
    m.allowed_cpus = std::get<std::vector<int>>(parsed);
  m.governors = governors_of(root, m.online_cpus.value_or(std::vector<int>{}));
  m.no_turbo = read_line(host_path(root, cpu + "/intel_pstate/no_turbo"));
  m.boost = read_line(host_path(root, cpu + "/cpufreq/boost"));
  m.smt_active = read_line(host_path(root, cpu + "/smt/active"));
  m.smt_control = read_line(host_path(root, cpu + "/smt/control"));
  m.isolated = read_line(host_path(root, cpu + "/isolated"));
  m.nohz_full = read_line(host_path(root, cpu + "/nohz_full"));
  m.aslr = read_line(host_path(root, "/proc/sys/kernel/randomize_va_space"));
  m.thp_enabled = read_line(host_path(root, "/sys/kernel/mm/transparent_hugepage/enabled"));
}

void read_system_facts(const fs::path& root, MachineFacts& m) {
  const auto meminfo = host_path(root, "/proc/meminfo");
  m.mem_total_kib = kib_after_colon(meminfo, "MemTotal");
  m.mem_available_kib = kib_after_colon(meminfo, "MemAvailable");
  m.swap_total_kib = kib_after_colon(meminfo, "SwapTotal");
  m.swap_free_kib = kib_after_colon(meminfo, "SwapFree");
  auto la = system_file(host_path(root, "/proc/loadavg"));
  if (std::array<double, 3> l{}; la >> l[0] >> l[1] >> l[2]) m.load_avg = l;
  m.dmi_product = read_line(host_path(root, "/sys/class/dmi/id/product_name"));
  m.dmi_vendor = read_line(host_path(root, "/sys/class/dmi/id/sys_vendor"));
  if (read_capped(host_path(root, "/proc/cpuinfo"))) {
    const std::string flags = " " + value_after_colon(host_path(root, "/proc/cpuinfo"), "flags") + " ";
    m.hypervisor_flag = flags.find(" hypervisor ") != std::string::npos;
  }
  for (const char* marker : {"/.dockerenv", "/run/.containerenv"}) {
    std::error_code ec;
    if (m.container_marker.empty() && fs::exists(host_path(root, marker), ec)) m.container_marker = marker;
  }
  m.cpu_quota = cpu_quota(root);
}
}  // namespace

std::map<std::string, std::string> compiler_env() {
  static const char* kPrefixes[] = {"XLA_", "JAX_", "NUMBA_", "TF_", "TRITON_", "TORCH", "CUDA_", "NVIDIA_",
                                    "OMP_", "MKL_", "OPENBLAS_", "PYTHONHASHSEED", "PYTHONPATH", "LD_PRELOAD",
                                    "LD_LIBRARY_PATH", "JITBENCH_"};
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    auto key = kv.substr(0, eq);
    for (const char* p : kPrefixes)
      if (key.rfind(p, 0) == 0) out[key] = kv.substr(eq + 1);
  }
  return out;
}

std::optional<CpuSample> cpu_sample_of(const std::string& before, const std::string& after, double seconds) {
  const auto a = cpu_ticks(before), b = cpu_ticks(after);
  const double total = a && b ? (*b)[2] - (*a)[2] : 0;
  if (!(total > 0)) return std::nullopt;  // unreadable, or no tick went by
  return CpuSample{seconds, 100 * ((*b)[0] - (*a)[0]) / total, 100 * ((*b)[1] - (*a)[1]) / total};
}

const std::vector<std::string>& thread_variables() {
  static const std::vector<std::string> names = {
      "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
      "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "XLA_FLAGS",
      "OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", "KMP_AFFINITY"};
  return names;
}

HostFacts read_host_facts(const HostReadOptions& opts) {
  HostFacts h;
  const fs::path& root = opts.root;
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  h.hostname = host;
  h.kernel = u.release;
  h.arch = u.machine;
  h.os = os_pretty_name(root);
  h.cpu_model = value_after_colon(host_path(root, "/proc/cpuinfo"), "model name");
  h.logical_cores = sysconf(_SC_NPROCESSORS_ONLN);
  MachineFacts& m = h.machine;
  read_cpu_facts(root, m);
  read_system_facts(root, m);
  m.sample = sample_cpus(root, opts.sample_ms);
  m.thread_env = thread_settings(opts.env ? *opts.env : process_env());
  h.governor = first_line(host_path(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
  h.no_turbo = m.no_turbo.value_or("");
  h.aslr = m.aslr.value_or("");
  h.memory_total_kib = m.mem_total_kib.value_or(-1);
  if (m.load_avg) std::copy(m.load_avg->begin(), m.load_avg->end(), h.load_avg);
  if (opts.gpus) h.nvidia_smi = std::system("command -v nvidia-smi >/dev/null 2>&1") == 0;
  if (h.nvidia_smi) h.gpus = gpus();
  return h;
}

}  // namespace jitbench
