#include "export/json/environment_json.h"

#include "env/ceilings.h"
#include "env/doctor.h"
#include "export/json/doctor_json.h"
#include "export/json/json_util.h"
#include "export/json/schema.h"
#include "util/build_info.h"
#include "util/cpu_list.h"
#include "util/json_get.h"

namespace jitbench {
using nlohmann::json;

namespace {
json gpu_json(const HostFacts& h) {
  if (!h.nvidia_smi) return {{"available", false}, {"note", "nvidia-smi not found"}, {"devices", json::array()}};
  json devices = json::array();
  for (const auto& g : h.gpus)
    devices.push_back({{"name", g.name}, {"driver", g.driver}, {"memory_total_mib", g.memory_total_mib},
                       {"clock_sm_mhz", g.clock_sm_mhz}, {"clock_sm_max_mhz", g.clock_sm_max_mhz},
                       {"persistence_mode", g.persistence_mode}});
  return {{"available", !devices.empty()}, {"note", devices.empty() ? "nvidia-smi listed no GPU" : ""},
          {"devices", devices}};
}

json host_json(const HostFacts& h) {
  return {
      {"hostname", h.hostname},
      {"os", text_or_null(h.os)},
      {"kernel", h.kernel},
      {"arch", h.arch},
      {"cpu",
       {{"model", text_or_null(h.cpu_model)},
        {"logical_cores", h.logical_cores},
        {"governor", text_or_null(h.governor)},
        {"no_turbo", text_or_null(h.no_turbo)}}},
      {"memory_total_kib", h.memory_total_kib < 0 ? json(nullptr) : json(h.memory_total_kib)},
      {"aslr", text_or_null(h.aslr)},
      {"load_avg", {h.load_avg[0], h.load_avg[1], h.load_avg[2]}},
      {"gpu", gpu_json(h)},
      {"machine", machine_facts_json(h.machine)},
      {"checks", findings_json(machine_findings(h))},
  };
}
}  // namespace

json environment_json(const HostFacts& host, const json& probe, const std::map<std::string, std::string>& env,
                      const std::string& captured_at) {
  json interpreter = {{"executable", string_or(probe, "executable", "")},
                      {"version", string_or(probe, "python", "")},
                      {"implementation", string_or(probe, "implementation", "")},
                      {"platform", string_or(probe, "platform", "")},
                      {"packages", object_or_empty(probe, "packages")}};
  // Every installed distribution (probes from this version on): what a re-measurement's environment is held to.
  for (const char* key : {"distributions", "distribution_records"})
    if (probe.contains(key) && probe[key].is_object()) interpreter[key] = probe[key];
  return {{"schema_version", kEnvironmentSchema},
          {"jitbench_version", jitbench_version()},
          {"captured_at", text_or_null(captured_at)},
          {"host", host_json(host)},
          {"python", interpreter},
          {"backends", object_or_empty(probe, "backends")},
          {"env", env}};
}

json unprobed_environment_json(const HostFacts& host, const std::string& python_executable,
                               const std::map<std::string, std::string>& env, const std::string& captured_at) {
  return environment_json(host, {{"executable", python_executable}}, env, captured_at);
}

void set_affinity(json& manifest, const std::vector<int>& pinned, const HostFacts& host) {
  const auto& allowed = host.machine.allowed_cpus;
  manifest["affinity"] = {
      {"pinned", !pinned.empty()},
      {"cpus", !pinned.empty() ? json(cpu_list_text(pinned)) : allowed ? json(cpu_list_text(*allowed)) : json(nullptr)}};
}

void set_ceilings(json& manifest, const DeviceCeilings& ceilings) {
  manifest["ceilings"] = {{"cpu", ceilings.cpu}, {"gpu", ceilings.gpu}};
  const auto problems_of = [&](const char* device) {
    auto trial = manifest;
    for (const char* other : {"cpu", "gpu"})
      if (std::string(other) != device) trial["ceilings"][other] = ceilings_not_measured("-");
    return validate_against(trial, kEnvironmentSchema);
  };
  for (const char* device : {"cpu", "gpu"})
    if (const auto problems = problems_of(device); !problems.empty())
      manifest["ceilings"][device] =
          ceilings_not_measured("the ceilings worker's answer fails the environment schema: " + problems.front());
}

void complete_environment_manifest(json& manifest, const json& run_ceilings, const json& build_record) {
  if (!run_ceilings.is_null()) manifest["ceilings"] = run_ceilings;
  auto& pkgs = manifest["python"]["packages"];
  const auto installed = build_record.value("packages", json::object());
  for (const auto& [name, version] : installed.items())
    if (version.is_string() && (!pkgs.contains(name) || pkgs[name].is_null())) pkgs[name] = version;
}

}  // namespace jitbench
