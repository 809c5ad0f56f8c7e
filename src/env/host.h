#pragma once
// Facts about the machine a run measures on, read from /proc, /sys, uname and
// nvidia-smi (export/environment_json.cc writes them into environment.json).
#include <map>
#include <string>
#include <vector>

namespace jitbench {

struct GpuDevice {
  std::string name, driver, memory_total_mib, clock_sm_mhz, clock_sm_max_mhz, persistence_mode;
};

struct HostFacts {
  std::string hostname, os, kernel, arch;
  std::string cpu_model, governor, no_turbo, aslr;  // "" when unknown
  long logical_cores = 0;
  long long memory_total_kib = -1;  // -1 when unknown
  double load_avg[3] = {0, 0, 0};
  bool nvidia_smi = false;  // found on PATH
  std::vector<GpuDevice> gpus;
};

HostFacts read_host_facts();

// Variables that steer compilers, threading and devices, captured verbatim.
std::map<std::string, std::string> compiler_env();

}  // namespace jitbench
