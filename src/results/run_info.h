#pragma once
// What a run is, beside its cases: the suite, the command, and the machine it
// ran on (the environment manifest, parsed once).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/environments.h"
#include "results/index_sections.h"

namespace jitbench {

struct EnvironmentInfo {
  nlohmann::json manifest = nlohmann::json::object();  // environment.json, verbatim
  std::string cpu_model = "unknown CPU";
  std::string logical_cores = "?";
  double memory_total_gib = 0;
  std::string governor, os, kernel, load_avg, captured_at;
  std::string python_version, python_platform, python_executable;
  std::vector<std::pair<std::string, std::string>> packages;  // installed ones, by name
  std::vector<std::string> gpus;  // names; empty when none
  std::string gpu_note;           // why there is none
  // Measured with the test-only switch kTestGpuOnCpu=1 (config/environments.h):
  // the run says so in its summary and report, and is never published or mixed.
  bool test_gpu_on_cpu = false;
  // `jitbench doctor`'s warns when the manifest was written ("check: found"),
  // and the workers' CPUs ("0-1", "2-3 (pinned)"; "" in manifests before v2).
  std::vector<std::string> machine_warnings;
  std::string affinity;
  // The manifest's "ceilings" ({"cpu", "gpu"}), or null when it has none.
  nlohmann::json ceilings() const {
    return manifest.is_object() && manifest.contains("ceilings") ? manifest["ceilings"] : nlohmann::json();
  }
};
// Never throws: missing fields keep their defaults.
EnvironmentInfo parse_environment(const nlohmann::json& manifest);

// What makes two environments different for a comparison: the hardware (CPU
// model, logical cores, architecture, GPUs), the CPUs the workers ran on
// (when both manifests record them) and the software (Python, package
// versions) — not the host's name, its load or the time. One line per
// difference ("CPU: 'A' vs 'B'", "numba: 0.60.0 vs 0.61.0"); empty when the
// two would measure alike.
std::vector<std::string> environment_differences(const nlohmann::json& a, const nlohmann::json& b);
// What a side measured again must share with the run it stands for (commands/common/pinned.h): the Python
// version and implementation, the backends' packages, and where both manifests hold them every installed
// distribution but jitbench's own (its version is compared apart), its RECORD's sha256 and the recorded
// settings that change what is compiled or measured (thread counts, the frameworks' XLA_/JAX_/NUMBA_/TF_/...
// variables, JITBENCH_NATIVE_BLAS; not PYTHONPATH, CUDA_VISIBLE_DEVICES or PYTHONHASHSEED). Not the hardware.
// One "what: a vs b" line per difference.
std::vector<std::string> environment_pin_differences(const nlohmann::json& a, const nlohmann::json& b);

// What published snapshots are grouped by: the --machine label when the run
// was given one, else the hardware (CPU model, logical cores, memory in GiB,
// GPU models and count) — never the host name, which CI runners change.
std::string machine_key(const EnvironmentInfo& e, const std::string& label);
// The software a run measured with, as pins: the Python (version,
// implementation) and every installed package's version; not paths, not the
// hardware. Two runs with equal pins ran the same software.
nlohmann::json environment_pins(const nlohmann::json& manifest);

struct RunInfo {
  std::string suite_name;
  std::string suite_source;
  std::string command;     // as typed
  std::size_t n_planned = 0;
  EnvironmentInfo environment;
  // A merged run whose shards ran in different environments: each file
  // (environments/env-K.json) with what it says, one entry per shard. Or a
  // run across pinned environments (--env, [[environments]]): one per environment.
  std::vector<std::pair<std::string, EnvironmentInfo>> environments;
  bool pinned_environments = false;  // the environments are the run's own dimension, not its shards'
};

// One file of an out dir, as the index lists it.
struct FileEntry {
  std::string path;  // relative to the out dir
  std::string sha256;
  std::uintmax_t bytes = 0;
};

struct RunHeader {
  RunInfo info;
  std::vector<std::string> argv;
  std::string started_at;  // "" when deterministic
  bool deterministic = false;
  // The index's optional sections: a shard's, a resumed or a merged run's,
  // the inputs, the build, the pinned environments (export/json/index_json.cc writes them).
  IndexSections sections;
};

}  // namespace jitbench
