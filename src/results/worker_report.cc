#include "results/worker_report.h"
#include "util/json_get.h"

namespace jitbench {
namespace {
using nlohmann::json;

std::optional<double> number_at(const json& j, const char* pointer) {
  const auto ptr = json::json_pointer(pointer);
  if (!j.contains(ptr) || !j.at(ptr).is_number()) return std::nullopt;
  return j.at(ptr).get<double>();
}

std::optional<bool> bool_at(const json& j, const char* pointer) {
  const auto ptr = json::json_pointer(pointer);
  if (!j.contains(ptr) || !j.at(ptr).is_boolean()) return std::nullopt;
  return j.at(ptr).get<bool>();
}

std::optional<std::string> string_at(const json& j, const char* pointer) {
  const auto ptr = json::json_pointer(pointer);
  if (!j.contains(ptr) || !j.at(ptr).is_string()) return std::nullopt;
  return j.at(ptr).get<std::string>();
}

CacheEvents cache_events(const json& raw, const char* key) {
  CacheEvents c;
  if (!raw.contains(key) || !raw[key].is_object()) return c;
  const auto& ev = raw[key];
  c.reported = ev.contains("hits") && ev["hits"].is_number();
  if (c.reported) c.hits = ev["hits"].get<double>();
  if (ev.contains("misses") && ev["misses"].is_number()) c.misses = ev["misses"].get<double>();
  return c;
}

Verification verification(const json& raw, const char* key) {
  Verification v;
  if (!raw.contains(key) || !raw[key].is_object()) return v;
  v.present = true;
  v.ok = bool_or(raw[key], "ok", false);
  v.message = string_at(raw[key], "/message").value_or("result differs from the float64 reference");
  return v;
}

void parse_phases(const json& raw, WorkerReport& w) {
  if (!raw.contains("first_call") || !raw["first_call"].is_object()) return;
  w.has_first_call = true;
  const auto& fc = raw["first_call"];
  const auto phases = object_or_empty(fc, "phases");
  for (const auto& name : array_or_empty(fc, "phase_names")) {
    if (!name.is_string()) continue;
    const auto n = name.get<std::string>();
    w.phases.emplace_back(n, phases.is_object() && phases.contains(n) && phases[n].is_number()
                                 ? phases[n].get<double>() : 0.0);
  }
  if (phases.is_object())
    for (const auto& [k, v] : phases.items())
      if (v.is_number()) w.all_phases_sum += v.get<double>();
  const auto sources = object_or_empty(fc, "phase_sources");
  if (sources.is_object())
    for (const auto& [k, v] : sources.items())
      if (v.is_string()) w.phase_sources[k] = v.get<std::string>();
}
}  // namespace

std::optional<double> WorkerReport::phase(const std::string& name) const {
  for (const auto& [n, v] : phases)
    if (n == name) return v;
  return std::nullopt;
}

WorkerReport parse_worker_report(json raw) {
  WorkerReport w;
  if (!raw.is_object()) return w;
  parse_phases(raw, w);
  w.compiles_first = number_at(raw, "/compiles/first_call");
  w.compiles_later = number_at(raw, "/compiles/later_calls");
  const auto by_fn = "/compiles/first_call_by_function"_json_pointer;
  w.compiled_functions = raw.contains(by_fn) && raw.at(by_fn).is_object() ? raw.at(by_fn) : json(nullptr);
  w.cache = cache_events(raw, "cache_events");
  w.cache_later = cache_events(raw, "cache_events_later");
  if (auto watched = bool_at(raw, "/cache_files/available"); watched && *watched) {
    w.files.watched = true;
    w.files.entries_read = number_at(raw, "/cache_files/entries_read").value_or(0);
    w.files.entries_written = number_at(raw, "/cache_files/entries_written").value_or(0);
  }
  w.cache_persistent = bool_at(raw, "/cache/persistent");
  w.pending_after_last = bool_at(raw, "/sync/pending_after_last_call");
  w.matmul_precision = string_at(raw, "/precision/matmul");
  w.rss_after_import_kib = number_at(raw, "/memory/rss_after_import_kib");
  w.rss_before_first_call_kib = number_at(raw, "/memory/rss_before_first_call_kib");
  // jitbench 0.1 read the peak right after the first call.
  w.hwm_after_calls_kib = number_at(raw, "/memory/hwm_after_calls_kib");
  if (!w.hwm_after_calls_kib) w.hwm_after_calls_kib = number_at(raw, "/memory/hwm_after_first_call_kib");
  w.device_peak_bytes = number_at(raw, "/memory/device_peak_bytes");
  const auto temp = "/memory/compiled/temp_size_in_bytes"_json_pointer;
  w.compiled_temp_bytes = raw.contains(temp) && raw.at(temp).is_number() ? raw.at(temp) : json(nullptr);
  if (raw.contains("aot") && raw["aot"].is_object())
    for (const auto& [k, v] : raw["aot"].items())
      if (v.is_number()) w.aot_steps[k] = v.get<double>();
  w.verify = verification(raw, "verify");
  w.verify_first = verification(raw, "verify_first");
  w.has_workload_info = raw.contains("workload");
  const auto err = "/workload/abs_error"_json_pointer;
  w.abs_error = raw.contains(err) ? raw.at(err) : json(nullptr);
  w.device_kind = string_at(raw, "/device/kind").value_or("");
  w.raw = std::move(raw);
  return w;
}

}  // namespace jitbench
