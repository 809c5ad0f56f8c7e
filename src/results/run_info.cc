#include "results/run_info.h"

namespace jitbench {
namespace {
using nlohmann::json;

std::string str_at(const json& j, const char* pointer, const std::string& fallback = "") {
  const auto ptr = json::json_pointer(pointer);
  return j.contains(ptr) && j.at(ptr).is_string() ? j.at(ptr).get<std::string>() : fallback;
}
std::string dump_at(const json& j, const char* pointer, const std::string& fallback) {
  const auto ptr = json::json_pointer(pointer);
  return j.contains(ptr) ? j.at(ptr).dump() : fallback;
}
}  // namespace

EnvironmentInfo parse_environment(const json& m) {
  EnvironmentInfo e;
  if (!m.is_object()) return e;
  e.manifest = m;
  e.cpu_model = str_at(m, "/host/cpu/model", "unknown CPU");
  e.logical_cores = dump_at(m, "/host/cpu/logical_cores", "?");
  if (m.contains("/host/memory_total_kib"_json_pointer) && m.at("/host/memory_total_kib"_json_pointer).is_number())
    e.memory_total_gib = m.at("/host/memory_total_kib"_json_pointer).get<double>() / 1048576.0;
  e.governor = str_at(m, "/host/cpu/governor");
  e.os = str_at(m, "/host/os");
  e.kernel = str_at(m, "/host/kernel");
  e.load_avg = dump_at(m, "/host/load_avg", "");
  e.captured_at = str_at(m, "/captured_at");
  e.python_version = str_at(m, "/python/version");
  e.python_platform = str_at(m, "/python/platform");
  e.python_executable = str_at(m, "/python/executable");
  const auto pkgs = "/python/packages"_json_pointer;
  if (m.contains(pkgs) && m.at(pkgs).is_object())
    for (const auto& [k, v] : m.at(pkgs).items())
      if (v.is_string()) e.packages.emplace_back(k, v.get<std::string>());
  const auto devices = "/host/gpu/devices"_json_pointer;
  if (m.contains(devices) && m.at(devices).is_array())
    for (const auto& d : m.at(devices))
      e.gpus.push_back(d.is_object() ? d.value("name", d.dump()) : d.dump());
  e.gpu_note = str_at(m, "/host/gpu/note", "not detected");
  return e;
}

}  // namespace jitbench
