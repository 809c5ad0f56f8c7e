#pragma once
// environment.json (schemas/jitbench.environment.v2.schema.json; readers take v1 too): the host,
// the interpreter the worker probe reported, and the compiler environment.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "env/host.h"

namespace jitbench {
inline constexpr const char* kEnvironmentSchema = "jitbench.environment.v2";
// probe: the worker's probe message; captured_at "" for none (deterministic runs).
nlohmann::json environment_json(const HostFacts& host, const nlohmann::json& probe,
                                const std::map<std::string, std::string>& env, const std::string& captured_at);
// Before the interpreter is probed: the host, and of the interpreter only its path.
nlohmann::json unprobed_environment_json(const HostFacts& host, const std::string& python_executable,
                                         const std::map<std::string, std::string>& env, const std::string& captured_at);

// The manifest's "affinity": the CPUs workers were pinned to (--affinity), or
// when not pinned the CPUs jitbench itself may run on, which they inherit.
void set_affinity(nlohmann::json& manifest, const std::vector<int>& pinned, const HostFacts& host);

// The machine's ceilings per device ("cpu", "gpu"): the ceilings worker's
// answer, or why they were not measured (env/ceilings.h).
struct DeviceCeilings {
  nlohmann::json cpu, gpu;
  nlohmann::json& of(const std::string& device) { return device == "gpu" ? gpu : cpu; }
};
// The manifest's "ceilings". A worker's answer that the manifest's schema
// would reject (a figure that is not a positive number) is not kept: the reason is.
void set_ceilings(nlohmann::json& manifest, const DeviceCeilings& ceilings);
// A pinned environment's manifest completed: the run's ceilings (when it has
// some) and every distribution its build record lists as installed, not only
// the probe's list of frameworks.
void complete_environment_manifest(nlohmann::json& manifest, const nlohmann::json& run_ceilings,
                                   const nlohmann::json& build_record);
}  // namespace jitbench
