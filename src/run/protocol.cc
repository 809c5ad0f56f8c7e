#include "run/protocol.h"
#include "stats/sequential.h"
#include "util/json_get.h"
#include "util/json_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace jitbench {
namespace {
using nlohmann::json;

std::string require_string(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return fmt::format("'{}' must be a string", key);
  return "";
}

// A measured duration: finite and >= 0, and either 0 or at least one tick of
// the nanosecond clocks every worker reads (5e-324 s is no measurement; its
// reciprocal, a throughput, would not even be a number).
constexpr double kClockTickS = 1e-9;
bool is_seconds(const json& v) {
  if (!v.is_number()) return false;
  const double x = v.get<double>();
  return std::isfinite(x) && (x == 0 || x >= kClockTickS);
}

// "" when j[key] is a number of seconds (finite, >= 0).
std::string seconds_field(const json& j, const char* key, const std::string& prefix = "") {
  if (!j.contains(key) || j[key].is_null()) return fmt::format("missing {}{}", prefix, key);
  if (!is_seconds(j[key])) return fmt::format("{}{} is not a duration (0, or >= 1 ns)", prefix, key);
  return "";
}

std::string verdict_field(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return fmt::format("missing {}", key);
  if (!j[key].is_object() || !j[key].contains("ok") || !j[key]["ok"].is_boolean())
    return fmt::format("{}.ok is not true or false", key);
  return "";
}

// As many calls as asked for; fewer than the most only where a rule stops them.
std::string warm_calls_violation(const std::vector<double>& calls, const WarmCallsAsked& warm) {
  const auto n = static_cast<int>(calls.size());
  if (!warm.target_pct && !warm.min_time_s) {
    if (n != warm.max) return fmt::format("calls_s holds {} calls, {} were asked for", n, warm.max);
    return "";
  }
  if (n < warm.min || n > warm.max)
    return fmt::format("calls_s holds {} calls, {} to {} were asked for", n, warm.min, warm.max);
  if (n == warm.max) return "";
  double total = 0;  // summed in the worker's order, so that the two sums agree to the last bit
  for (const double c : calls) total += c;
  if (warm.min_time_s && total >= *warm.min_time_s) return "";
  const auto width = stats::half_width_pct(calls, stats::kStopConfidence);
  if (warm.target_pct && width && *width <= *warm.target_pct) return "";
  if (!warm.target_pct)
    return fmt::format("the warm calls stopped at {} of {} before they took {:g} s (they took {:.3g} s)", n, warm.max,
                       *warm.min_time_s, total);
  return fmt::format("the warm calls stopped at {} of {} before their 99% interval was within +-{:g}% (it is {}){}",
                     n, warm.max, *warm.target_pct, width ? fmt::format("+-{:.3g}%", *width) : "undefined",
                     warm.min_time_s ? fmt::format(" or they took {:g} s", *warm.min_time_s) : "");
}

// Another thread's item: "thread" a name, "thread_s" seconds (both optional).
std::string anatomy_thread_violation(const json& it) {
  if (it.contains("thread") && (!it["thread"].is_string() || it["thread"].get<std::string>().empty()))
    return "an anatomy item's thread is not a name";
  if (it.contains("thread") != it.contains("thread_s"))
    return "an anatomy item gives one of thread and thread_s without the other: another thread's item has both";
  if (it.contains("thread_s")) return seconds_field(it, "thread_s", "anatomy item ");
  return "";
}

// The optional "outside_phases": {"events", "wall_s", "thread_s", "first_call_s"}, each a count or seconds.
std::string anatomy_outside_violation(const json& a) {
  if (!a.contains("outside_phases")) return "";
  if (!a["outside_phases"].is_object()) return "anatomy.outside_phases is not an object";
  const auto& o = a["outside_phases"];
  for (const char* k : {"events", "wall_s", "thread_s", "first_call_s"})
    if (auto e = seconds_field(o, k, "anatomy.outside_phases."); !e.empty()) return e;
  if (!o["events"].is_number_integer()) return "anatomy.outside_phases.events is not a whole number of events";
  return "";
}

// mode anatomy: {"items": [{"path": [non-empty strings], "s": seconds, "source": text, "intervals"?,
// "thread"?, "thread_s"?}], "outside_phases"?}.
std::string anatomy_violation(const json& j) {
  if (!j.contains("anatomy") || !j["anatomy"].is_object()) return "missing anatomy";
  const auto& a = j["anatomy"];
  if (!a.contains("items") || !a["items"].is_array()) return "missing anatomy.items";
  if (auto e = anatomy_outside_violation(a); !e.empty()) return e;
  for (const auto& it : a["items"]) {
    if (!it.is_object() || !it.contains("path") || !it["path"].is_array() || it["path"].empty())
      return "an anatomy item has no path (a non-empty list of names)";
    for (const auto& p : it["path"])
      if (!p.is_string() || p.get<std::string>().empty()) return "an anatomy item's path holds something other than names";
    if (auto e = seconds_field(it, "s", "anatomy item "); !e.empty()) return e;
    if (auto e = anatomy_thread_violation(it); !e.empty()) return e;
    if (!it.contains("intervals")) continue;
    if (!it["intervals"].is_array()) return "an anatomy item's intervals are not a list";
    for (const auto& iv : it["intervals"])
      if (!iv.is_array() || iv.size() != 2 || !iv[0].is_number() || !iv[1].is_number() ||
          !std::isfinite(iv[0].get<double>()) || !(iv[1].get<double>() >= iv[0].get<double>()))
        return "an anatomy item's intervals hold something other than [start, end] with end >= start";
  }
  // The items come from the instrumentation; a run that says it had none cannot have them.
  const auto instrumented = "/instrumentation/anatomy"_json_pointer;
  if (!j.contains(instrumented) || j.at(instrumented) != true)
    return "an anatomy run without instrumentation.anatomy true (its items must come from the instrumentation)";
  return "";
}

std::string times_violation(const json& j, RunMode mode, const WarmCallsAsked& warm) {
  // Only an anatomy process runs the instrumentation: a measured run that
  // reports items ran with it (or lies about what it ran).
  if (mode != RunMode::Anatomy && j.contains("anatomy"))
    return fmt::format("a {} run reported an anatomy (only mode anatomy runs the instrumentation)", to_string(mode));
  for (const char* k : {"import_s", "setup_s", "first_call_s", "total_s"})
    if (auto e = seconds_field(j, k); !e.empty()) return e;
  if (mode == RunMode::Cold) return seconds_field(j, "second_call_s");
  if (mode == RunMode::Count) {
    if (auto e = seconds_field(j, "second_call_s"); !e.empty()) return e;
    // What it counted is checked against the marks it names (run/counting.h).
    if (!j.contains("count") || !j["count"].is_object()) return "missing count";
    if (!j["count"].contains("marks") || !j["count"]["marks"].is_array()) return "missing count.marks";
    return "";
  }
  if (mode == RunMode::Anatomy) {
    if (auto e = seconds_field(j, "second_call_s"); !e.empty()) return e;
    return anatomy_violation(j);
  }
  if (mode == RunMode::Aot) {
    if (!j.contains("aot") || !j["aot"].is_object()) return "missing aot";
    for (const char* k : {"trace_s", "lower_s", "compile_s", "execute_s"})
      if (auto e = seconds_field(j["aot"], k, "aot."); !e.empty()) return e;
    return "";
  }
  if (!j.contains("calls_s") || !j["calls_s"].is_array()) return "missing calls_s";
  for (const auto& x : j["calls_s"])
    if (!is_seconds(x)) return "calls_s holds something other than durations (0, or >= 1 ns)";
  return warm_calls_violation(j["calls_s"].get<std::vector<double>>(), warm);
}

// The harness's own buckets (optional; docs/protocol.md): four durations, the
// two CLOCK_MONOTONIC stamps they lie between and the marks that part them.
std::string harness_violation(const json& j) {
  if (!j.contains("harness")) return "";
  const auto& h = j["harness"];
  if (!h.is_object()) return "harness is not an object";
  for (const char* k : {"import_s", "observe_s", "verify_s", "report_s"})
    if (auto e = seconds_field(h, k, "harness."); !e.empty()) return e;
  for (const char* k : {"started_monotonic_ns", "sent_monotonic_ns"})
    if (!h.contains(k) || !h[k].is_number_integer() || h[k].get<long long>() <= 0)
      return fmt::format("harness.{} is not a CLOCK_MONOTONIC reading in nanoseconds", k);
  if (h["sent_monotonic_ns"].get<long long>() < h["started_monotonic_ns"].get<long long>())
    return "harness.sent_monotonic_ns is earlier than harness.started_monotonic_ns";
  if (!h.contains("marks_monotonic_ns") || !h["marks_monotonic_ns"].is_object())
    return "missing harness.marks_monotonic_ns (the stamps between the buckets)";
  for (const char* k : kHarnessMarks) {
    const auto& m = h["marks_monotonic_ns"];
    if (!m.contains(k) || !m[k].is_number_integer() || m[k].get<long long>() <= 0)
      return fmt::format("harness.marks_monotonic_ns.{} is not a CLOCK_MONOTONIC reading in nanoseconds", k);
  }
  return "";
}

// Every phase declared once and measured as seconds: a phase left out of
// phase_names, or named twice, would escape the sum the first call bounds.
std::string phases_violation(const json& j) {
  if (!j.contains("first_call") || !j["first_call"].is_object()) return "missing first_call";
  const auto& fc = j["first_call"];
  if (!fc.contains("phase_names") || !fc["phase_names"].is_array()) return "missing first_call.phase_names";
  std::vector<std::string> declared;
  for (const auto& n : fc["phase_names"]) {
    if (!n.is_string()) return "first_call.phase_names holds something other than names";
    const auto name = n.get<std::string>();
    if (std::find(declared.begin(), declared.end(), name) != declared.end())
      return fmt::format("phase '{}' declared twice", name);
    declared.push_back(name);
  }
  if (!fc.contains("phases") || !fc["phases"].is_object()) return "missing first_call.phases";
  for (const auto& [name, v] : fc["phases"].items()) {
    if (std::find(declared.begin(), declared.end(), name) == declared.end())
      return fmt::format("phase '{}' is not declared in phase_names", name);
    if (!is_seconds(v)) return fmt::format("phase '{}' is not a duration (0, or >= 1 ns)", name);
  }
  return "";
}

std::string check(MessageType t, const json& j) {
  switch (t) {
    case MessageType::Hello:
      if (!j.contains("protocol") || !j["protocol"].is_number_integer()) return "'protocol' must be an integer";
      if (j["protocol"].get<int>() != kProtocolVersion)
        return fmt::format("protocol {} not supported (jitbench speaks {})", j["protocol"].dump(), kProtocolVersion);
      if (!j.contains("monotonic_ns") || !j["monotonic_ns"].is_number_integer())
        return "'monotonic_ns' must be an integer";
      return "";
    case MessageType::Result:
      // Its fields are checked against the run that was asked for (result_violation).
      return "";
    case MessageType::Skip:
      if (auto e = require_string(j, "reason"); !e.empty()) return e;
      if (string_or(j, "status", "") != "warn") return "'status' of a skip must be \"warn\"";
      return "";
    case MessageType::Error:
      if (auto e = require_string(j, "reason"); !e.empty()) return e;
      return require_string(j, "message");
    case MessageType::Probe:
      if (!j.contains("backends") || !j["backends"].is_object()) return "'backends' must be an object";
      return "";
    case MessageType::Ceilings:
      if (!j.contains("ceilings") || !j["ceilings"].is_object()) return "'ceilings' must be an object";
      if (!j["ceilings"].contains("measured") || !j["ceilings"]["measured"].is_boolean())
        return "'ceilings.measured' must be true or false";
      return "";
    case MessageType::Environment:
      if (auto e = require_string(j, "python"); !e.empty()) return e;
      return require_string(j, "name");
    case MessageType::Versions:
      if (!j.contains("versions") || !j["versions"].is_array()) return "'versions' must be a list";
      for (const auto& v : j["versions"])
        if (!v.is_string()) return "'versions' must hold strings";
      return "";
    case MessageType::Hashes:
      if (!j.contains("hashes") || !j["hashes"].is_object()) return "'hashes' must be an object";
      for (const auto& [k, v] : j["hashes"].items())
        if (!v.is_string() && !v.is_null()) return "'hashes' must map names to a hash or null";
      return "";
    case MessageType::Bye:
      return "";
  }
  return "unknown type";
}
}  // namespace

std::string result_violation(const json& j, RunMode mode, const WarmCallsAsked& warm) {
  const auto got = string_or(j, "mode", "");
  if (got != to_string(mode)) return fmt::format("a {} run answered as mode '{}'", to_string(mode), got);
  if (auto e = times_violation(j, mode, warm); !e.empty()) return e;
  for (const char* k : {"verify_first", "verify"})
    if (auto e = verdict_field(j, k); !e.empty()) return e;
  if (auto e = phases_violation(j); !e.empty()) return e;
  if (auto e = harness_violation(j); !e.empty()) return e;
  const auto pending = "/sync/pending_after_last_call"_json_pointer;
  if (!j.contains(pending)) return "missing sync.pending_after_last_call";
  if (!j.at(pending).is_boolean() && !j.at(pending).is_null()) return "sync.pending_after_last_call is not true, false or null";
  if (!string_at(j, "/precision/matmul")) return "missing precision.matmul";
  return "";
}

std::variant<Message, std::string> parse_message(std::string_view line) {
  auto parsed = parse_json(line);
  if (auto* e = std::get_if<std::string>(&parsed)) return *e;
  json j = std::get<json>(std::move(parsed));
  if (!j.is_object()) return std::string("not a JSON object");
  if (!j.contains("type") || !j["type"].is_string()) return std::string("missing 'type'");
  static const std::pair<const char*, MessageType> kTypes[] = {
      {"hello", MessageType::Hello}, {"result", MessageType::Result}, {"skip", MessageType::Skip},
      {"error", MessageType::Error}, {"probe", MessageType::Probe},   {"ceilings", MessageType::Ceilings},
      {"environment", MessageType::Environment}, {"versions", MessageType::Versions},
      {"hashes", MessageType::Hashes},           {"bye", MessageType::Bye}};
  const auto name = j["type"].get<std::string>();
  for (const auto& [n, t] : kTypes) {
    if (name == n) {
      if (auto err = check(t, j); !err.empty()) return fmt::format("{} message: {}", name, err);
      return Message{t, std::move(j)};
    }
  }
  return fmt::format("unknown message type '{}'", name);
}

void LineSplitter::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (c == '\n') {
      if (!discarding_) lines_.push_back(std::move(buf_));
      buf_.clear();
      discarding_ = false;
      continue;
    }
    if (discarding_) continue;
    if (buf_.size() >= max_line_) {
      overflowed_ = true;
      discarding_ = true;  // drop the rest of this line, up to its newline
      buf_.clear();
      continue;
    }
    buf_ += c;
  }
}

std::vector<std::string> LineSplitter::take_lines() {
  std::vector<std::string> out;
  out.swap(lines_);
  return out;
}

}  // namespace jitbench
