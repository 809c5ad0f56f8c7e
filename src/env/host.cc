#include "env/host.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>


extern char** environ;

namespace jitbench {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

std::string value_after_colon(const std::string& path, const std::string& key) {
  std::ifstream in(path);
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

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
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

HostFacts read_host_facts() {
  HostFacts h;
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  h.hostname = host;
  h.kernel = u.release;
  h.arch = u.machine;
  h.os = os_pretty_name();
  h.cpu_model = value_after_colon("/proc/cpuinfo", "model name");
  h.logical_cores = sysconf(_SC_NPROCESSORS_ONLN);
  h.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  h.no_turbo = first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
  h.aslr = first_line("/proc/sys/kernel/randomize_va_space");
  const std::string mem_total = value_after_colon("/proc/meminfo", "MemTotal");
  if (!mem_total.empty()) h.memory_total_kib = std::stoll(mem_total);
  std::ifstream la("/proc/loadavg");
  la >> h.load_avg[0] >> h.load_avg[1] >> h.load_avg[2];
  h.nvidia_smi = std::system("command -v nvidia-smi >/dev/null 2>&1") == 0;
  if (h.nvidia_smi) h.gpus = gpus();
  return h;
}

}  // namespace jitbench
