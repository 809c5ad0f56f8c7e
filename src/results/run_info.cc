#include "results/run_info.h"

#include <algorithm>
#include <cstdio>

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

std::string gpus_of(const json& m) {
  std::string out;
  const auto ptr = json::json_pointer("/host/gpu/devices");
  if (m.contains(ptr) && m.at(ptr).is_array())
    for (const auto& d : m.at(ptr)) out += (out.empty() ? "" : ", ") + str_at(d, "/name", "?");
  return out.empty() ? "none" : out;
}
}  // namespace

std::vector<std::string> environment_differences(const json& a, const json& b) {
  std::vector<std::string> out;
  const auto field = [&](const char* label, const std::string& x, const std::string& y) {
    if (x != y) out.push_back(std::string(label) + ": '" + x + "' vs '" + y + "'");
  };
  field("CPU", str_at(a, "/host/cpu/model", "?"), str_at(b, "/host/cpu/model", "?"));
  field("logical cores", dump_at(a, "/host/cpu/logical_cores", "?"), dump_at(b, "/host/cpu/logical_cores", "?"));
  field("architecture", str_at(a, "/host/arch", "?"), str_at(b, "/host/arch", "?"));
  field("GPUs", gpus_of(a), gpus_of(b));
  field("Python", str_at(a, "/python/version", "?"), str_at(b, "/python/version", "?"));
  // Where the workers ran (manifests v2 on: --affinity or the CPUs inherited); not compared with an older manifest.
  const auto workers = [](const json& m) {
    return str_at(m, "/affinity/cpus", "?") + (m.value("/affinity/pinned"_json_pointer, false) ? " (pinned)" : "");
  };
  if (a.contains("/affinity"_json_pointer) && b.contains("/affinity"_json_pointer))
    field("worker CPUs", workers(a), workers(b));
  const auto pa = a.value(json::json_pointer("/python/packages"), json::object());
  const auto pb = b.value(json::json_pointer("/python/packages"), json::object());
  std::vector<std::string> names;
  for (const auto* p : {&pa, &pb})
    if (p->is_object())
      for (const auto& [k, v] : p->items()) names.push_back(k);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const auto& n : names) {
    const auto version = [&](const json& p) {
      return p.is_object() && p.contains(n) && !p[n].is_null() ? (p[n].is_string() ? p[n].get<std::string>() : p[n].dump())
                                                               : std::string("absent");
    };
    if (version(pa) != version(pb)) out.push_back(n + ": " + version(pa) + " vs " + version(pb));
  }
  return out;
}

namespace {
// A recorded setting that changes what is compiled or measured (thread counts, the frameworks' flags, the
// native floor's BLAS); not where things are found (PYTHONPATH: the code is pinned by its sha256), the
// devices a job was handed (CUDA_VISIBLE_DEVICES) or a hash seed a test runner draws.
bool setting_that_matters(const std::string& key) {
  static const char* kPrefixes[] = {"XLA_", "JAX_", "NUMBA_", "TF_", "TRITON_", "TORCH", "OMP_", "MKL_",
                                    "OPENBLAS_", "BLIS_", "VECLIB_", "NUMEXPR_", "GOMP_", "KMP_"};
  if (key == "JITBENCH_NATIVE_BLAS") return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](const char* p) { return key.rfind(p, 0) == 0; });
}
}  // namespace

std::vector<std::string> environment_pin_differences(const json& a, const json& b) {
  using ptr = json::json_pointer;
  std::vector<std::string> out;
  for (const char* at : {"/python/version", "/python/implementation"}) {
    const auto x = a.value(ptr(at), std::string("?")), y = b.value(ptr(at), std::string("?"));
    if (x != y) out.push_back(std::string(at + 1) + ": '" + x + "' vs '" + y + "'");
  }
  for (const char* at : {"/python/packages", "/python/distributions", "/python/distribution_records", "/env"}) {
    if (std::string(at) != "/python/packages" && !(a.contains(ptr(at)) && b.contains(ptr(at)))) continue;
    const auto pa = a.value(ptr(at), json::object()), pb = b.value(ptr(at), json::object());
    const auto version = [](const json& p, const std::string& name) {
      return p.contains(name) && p[name].is_string() ? p[name].get<std::string>() : std::string("absent");
    };
    for (const auto* side : {&pa, &pb})
      for (const auto& [name, v] : side->items()) {
        if (std::string(at) == "/env" ? !setting_that_matters(name) : name == "jitbench") continue;  // its version: apart
        const auto d = name + ": " + version(pa, name) + " vs " + version(pb, name);
        if (version(pa, name) != version(pb, name) && std::find(out.begin(), out.end(), d) == out.end())
          out.push_back(d);
      }
  }
  return out;
}

std::string machine_key(const EnvironmentInfo& e, const std::string& label) {
  if (!label.empty()) return label;
  std::string gpus = "no GPU";
  if (!e.gpus.empty()) gpus = std::to_string(e.gpus.size()) + " × " + e.gpus.front();
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.0f GiB", e.memory_total_gib);
  return e.cpu_model + " · " + e.logical_cores + " cores · " + mem + " · " + gpus;
}

json environment_pins(const json& m) {
  json pins = {{"python_version", str_at(m, "/python/version", "?")},
               {"implementation", str_at(m, "/python/implementation", "?")},
               {"packages", json::object()}};
  const auto pkgs = "/python/packages"_json_pointer;
  if (m.contains(pkgs) && m.at(pkgs).is_object())
    for (const auto& [k, v] : m.at(pkgs).items())
      if (v.is_string()) pins["packages"][k] = v;
  return pins;
}

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
  const auto checks = "/host/checks"_json_pointer;
  if (m.contains(checks) && m.at(checks).is_array())
    for (const auto& c : m.at(checks))
      if (c.is_object() && c.value("level", "") == "warn")
        e.machine_warnings.push_back(c.value("check", "?") + ": " + c.value("found", ""));
  if (const auto cpus = str_at(m, "/affinity/cpus"); !cpus.empty())
    e.affinity = cpus + (m.value("/affinity/pinned"_json_pointer, false) ? " (pinned with --affinity)" : "");
  const auto test_switch = json::json_pointer("/env") / kTestGpuOnCpu;
  e.test_gpu_on_cpu = m.contains(test_switch) && m.at(test_switch) == "1";
  return e;
}

}  // namespace jitbench
