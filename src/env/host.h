#pragma once
// Facts about the machine a run measures on, read from /proc, /sys, uname and
// nvidia-smi (export/json/environment_json.cc writes them into environment.json;
// env/doctor.h judges them for `jitbench doctor`). Every /proc and /sys file
// is read here and only here, below a root directory that a test can point at
// a fake tree.
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jitbench {

struct GpuDevice {
  std::string name, driver, memory_total_mib, clock_sm_mhz, clock_sm_max_mhz, persistence_mode;
};

// What the CPUs did over a short interval (two reads of /proc/stat): the share
// of all CPU time that was busy (user, nice, system, irq, softirq, steal) and
// the share a hypervisor stole.
struct CpuSample {
  double seconds = 0, busy_pct = 0, steal_pct = 0;
};

// What matters for benchmarking, each std::nullopt when its file is absent
// (the file's text, trimmed, otherwise).
struct MachineFacts {
  std::optional<std::vector<int>> online_cpus, allowed_cpus;  // allowed: Cpus_allowed_list of this process
  std::vector<std::string> governors;  // the distinct scaling governors of the online CPUs; empty: none readable
  std::optional<std::string> no_turbo, boost, smt_active, smt_control, aslr, thp_enabled, isolated, nohz_full;
  std::optional<std::string> dmi_product, dmi_vendor;
  std::optional<bool> hypervisor_flag;  // the cpuinfo flag, when /proc/cpuinfo was read
  std::string container_marker;         // /.dockerenv or /run/.containerenv when present
  std::optional<std::string> cpu_quota;  // "QUOTA PERIOD" in microseconds ("max PERIOD": none), cgroup v2 or v1
  std::optional<long long> swap_total_kib, swap_free_kib, mem_total_kib, mem_available_kib;
  std::optional<std::array<double, 3>> load_avg;
  std::optional<CpuSample> sample;  // none when not sampled or /proc/stat is unreadable
  std::map<std::string, std::string> thread_env;  // the thread-count and affinity variables that are set
};

struct HostFacts {
  std::string hostname, os, kernel, arch;
  std::string cpu_model, governor, no_turbo, aslr;  // "" when unknown
  long logical_cores = 0;
  long long memory_total_kib = -1;  // -1 when unknown
  double load_avg[3] = {0, 0, 0};
  bool nvidia_smi = false;  // found on PATH
  std::vector<GpuDevice> gpus;
  MachineFacts machine;
};

struct HostReadOptions {
  std::filesystem::path root = "/";  // /proc, /sys, /etc and the container markers are read below it
  int sample_ms = 0;                 // > 0: sample /proc/stat over this interval (MachineFacts::sample)
  // The variables to read thread settings from; none: this process's environment.
  std::optional<std::map<std::string, std::string>> env;
  bool gpus = true;  // ask nvidia-smi
};

HostFacts read_host_facts(const HostReadOptions& opts = {});

// The sample between two texts of /proc/stat taken `seconds` apart; none when
// either lacks the "cpu" line or no tick went by.
std::optional<CpuSample> cpu_sample_of(const std::string& before, const std::string& after, double seconds);

// Variables that steer compilers, threading and devices, captured verbatim.
std::map<std::string, std::string> compiler_env();

// The variables that set how many threads BLAS, OpenMP and the frameworks
// start, or where they run (looked for by MachineFacts::thread_env).
const std::vector<std::string>& thread_variables();

}  // namespace jitbench
