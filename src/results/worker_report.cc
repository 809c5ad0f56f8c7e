#include "results/worker_report.h"

#include <algorithm>
#include <limits>

#include "util/json_get.h"

namespace jitbench {
namespace {
using nlohmann::json;

// A count (of compiles, cache hits, cache files): a number >= 0, else not reported.
std::optional<double> count_at(const json& j, const char* pointer) {
  const auto v = number_at(j, pointer);
  return v && *v >= 0 ? v : std::nullopt;
}

CacheEvents cache_events(const json& raw, const char* key) {
  CacheEvents c;
  if (!raw.contains(key) || !raw[key].is_object()) return c;
  const auto hits = count_at(raw[key], "/hits");
  c.reported = hits.has_value();
  c.hits = hits.value_or(c.hits);
  c.misses = count_at(raw[key], "/misses").value_or(c.misses);
  return c;
}

// A number of the worker's verdict; the protocol spells a non-finite one "nan", "inf" or "-inf".
std::optional<double> finite_or_spelled(const json& v, const char* key) {
  if (!v.contains(key)) return std::nullopt;
  const auto& x = v[key];
  if (x.is_number()) return x.get<double>();
  if (!x.is_string()) return std::nullopt;
  const auto s = x.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

Verification verification(const json& raw, const char* key) {
  Verification v;
  if (!raw.contains(key) || !raw[key].is_object()) return v;
  v.present = true;
  v.ok = bool_or(raw[key], "ok", false);
  v.message = string_at(raw[key], "/message").value_or("result differs from the float64 reference");
  v.reference = string_at(raw[key], "/reference").value_or("");
  v.metric = string_at(raw[key], "/metric").value_or("");
  v.error = finite_or_spelled(raw[key], "error");
  v.tolerance = finite_or_spelled(raw[key], "tolerance");
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

namespace {
// mode anatomy: the items as reported (a malformed one is left out here; the
// protocol check has failed its run already).
std::vector<AnatomyItem> anatomy_items(const json& raw) {
  std::vector<AnatomyItem> out;
  for (const auto& it : array_or_empty(object_or_empty(raw, "anatomy"), "items")) {
    if (!it.is_object() || !it.contains("path") || !it["path"].is_array() || !it.contains("s") || !it["s"].is_number())
      continue;
    AnatomyItem a;
    for (const auto& p : it["path"]) a.path.push_back(p.is_string() ? p.get<std::string>() : p.dump());
    a.s = it["s"].get<double>();
    a.source = it.contains("source") && it["source"].is_string() ? it["source"].get<std::string>() : "";
    for (const auto& iv : array_or_empty(it, "intervals"))
      if (iv.is_array() && iv.size() == 2 && iv[0].is_number() && iv[1].is_number())
        a.intervals.emplace_back(iv[0].get<double>(), iv[1].get<double>());
    if (it.contains("thread") && it["thread"].is_string()) a.thread = it["thread"].get<std::string>();
    if (it.contains("thread_s") && it["thread_s"].is_number()) a.thread_s = it["thread_s"].get<double>();
    out.push_back(std::move(a));
  }
  return out;
}

std::optional<AnatomyOutside> anatomy_outside(const json& raw) {
  const auto o = object_or_empty(object_or_empty(raw, "anatomy"), "outside_phases");
  if (!o.is_object() || o.empty()) return std::nullopt;
  AnatomyOutside out;
  for (auto [key, field] : {std::pair{"events", &out.events}, {"wall_s", &out.wall_s}, {"thread_s", &out.thread_s},
                            {"first_call_s", &out.first_call_s}}) {
    if (!o.contains(key) || !o[key].is_number()) return std::nullopt;
    *field = o[key].get<double>();
  }
  return out;
}
}  // namespace

namespace {
// Only a list of well-formed entries counts as recorded: a malformed one
// cannot say the code is pinned.
std::optional<std::vector<LocalModule>> local_modules(const json& raw) {
  if (!raw.contains("local_modules") || !raw["local_modules"].is_array()) return std::nullopt;
  std::vector<LocalModule> out;
  for (const auto& m : raw["local_modules"]) {
    if (!m.is_object() || !m.contains("path") || !m["path"].is_string() || !m.contains("sha256") ||
        !m["sha256"].is_string())
      return std::nullopt;
    out.push_back({m["path"].get<std::string>(), m["sha256"].get<std::string>()});
  }
  return out;
}
}  // namespace

WorkerReport parse_worker_report(json raw) {
  WorkerReport w;
  if (!raw.is_object()) return w;
  parse_phases(raw, w);
  w.compiles_first = count_at(raw, "/compiles/first_call");
  w.compiles_later = count_at(raw, "/compiles/later_calls");
  // Function name -> compile count; a map with anything but counts in it is not a report of compiles.
  const auto by_fn = "/compiles/first_call_by_function"_json_pointer;
  if (raw.contains(by_fn) && raw.at(by_fn).is_object()) {
    const auto& m = raw.at(by_fn);
    const bool counts = std::all_of(m.begin(), m.end(), [](const json& v) { return v.is_number_unsigned(); });
    w.compiled_functions = counts ? m : json(nullptr);
  }
  w.cache = cache_events(raw, "cache_events");
  w.cache_later = cache_events(raw, "cache_events_later");
  // Evidence from the file watcher only with counts that can be true (an absent count is 0).
  const auto counted = [&](const char* pointer) -> std::optional<double> {
    if (!raw.contains(json::json_pointer(pointer))) return 0.0;
    return count_at(raw, pointer);
  };
  const auto read = counted("/cache_files/entries_read"), written = counted("/cache_files/entries_written");
  if (bool_at(raw, "/cache_files/available").value_or(false) && read && written) {
    w.files.watched = true;
    w.files.entries_read = *read;
    w.files.entries_written = *written;
  }
  w.cache_persistent = bool_at(raw, "/cache/persistent");
  for (const auto& d : array_or_empty(object_or_empty(raw, "cache"), "outside_case_dir"))
    w.cache_outside += (w.cache_outside.empty() ? "" : ", ") + (d.is_string() ? d.get<std::string>() : d.dump());
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
  w.anatomy = anatomy_items(raw);
  w.anatomy_outside = anatomy_outside(raw);
  w.anatomy_instrumented = bool_at(raw, "/instrumentation/anatomy");
  w.profiler_session = bool_at(raw, "/instrumentation/profiler_session");
  w.verify = verification(raw, "verify");
  w.verify_first = verification(raw, "verify_first");
  w.has_workload_info = raw.contains("workload");
  w.workload_info = raw.contains("workload") && raw["workload"].is_object() ? raw["workload"] : json(nullptr);
  w.workload_record = raw.contains("workload_record") ? raw["workload_record"] : json(nullptr);
  w.device_kind = string_at(raw, "/device/kind").value_or("");
  w.device_platform = string_at(raw, "/device/platform").value_or("");
  w.device_test_only = string_at(raw, "/device/test_only").value_or("");
  w.local_modules = local_modules(raw);
  w.raw = std::move(raw);
  return w;
}

}  // namespace jitbench
