#include "env/manifest.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "results/json.h"
#include "run/case_runner.h"

extern char** environ;

namespace jitbench {
namespace {
using nlohmann::json;

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

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// nvidia-smi's view of the GPUs, or null with the reason it is absent.
json gpus() {
  const char* cmd =
      "nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,persistence_mode "
      "--format=csv,noheader,nounits 2>/dev/null";
  if (std::system("command -v nvidia-smi >/dev/null 2>&1") != 0)
    return {{"available", false}, {"note", "nvidia-smi not found"}, {"devices", json::array()}};
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd, "r"), pclose);
  json devices = json::array();
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
      if (f.size() >= 6)
        devices.push_back({{"name", f[0]}, {"driver", f[1]}, {"memory_total_mib", f[2]},
                           {"clock_sm_mhz", f[3]}, {"clock_sm_max_mhz", f[4]}, {"persistence_mode", f[5]}});
    }
  }
  return {{"available", !devices.empty()}, {"note", devices.empty() ? "nvidia-smi listed no GPU" : ""},
          {"devices", devices}};
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

json host_facts() {
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::ifstream la("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  la >> l1 >> l5 >> l15;
  const std::string mem_total = value_after_colon("/proc/meminfo", "MemTotal");
  return {
      {"hostname", host},
      {"os", or_null(os_pretty_name())},
      {"kernel", u.release},
      {"arch", u.machine},
      {"cpu",
       {{"model", or_null(value_after_colon("/proc/cpuinfo", "model name"))},
        {"logical_cores", sysconf(_SC_NPROCESSORS_ONLN)},
        {"governor", or_null(first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))},
        {"no_turbo", or_null(first_line("/sys/devices/system/cpu/intel_pstate/no_turbo"))}}},
      {"memory_total_kib", mem_total.empty() ? json(nullptr) : json(std::stoll(mem_total))},
      {"aslr", or_null(first_line("/proc/sys/kernel/randomize_va_space"))},
      {"load_avg", {l1, l5, l15}},
      {"gpu", gpus()},
  };
}

json environment_manifest(const json& probe, bool deterministic) {
  return {{"schema_version", kEnvironmentSchema},
          {"jitbench_version", JITBENCH_VERSION},
          {"captured_at", deterministic ? json(nullptr) : json(utc_now())},
          {"host", host_facts()},
          {"python",
           {{"executable", probe.value("executable", "")},
            {"version", probe.value("python", "")},
            {"implementation", probe.value("implementation", "")},
            {"platform", probe.value("platform", "")},
            {"packages", probe.value("packages", json::object())}}},
          {"backends", probe.value("backends", json::object())},
          {"env", compiler_env()}};
}

}  // namespace jitbench
