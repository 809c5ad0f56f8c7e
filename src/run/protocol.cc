#include "run/protocol.h"
#include "util/json_get.h"

#include <fmt/format.h>

namespace jitbench {
namespace {
using nlohmann::json;

std::string require_number(const json& j, const char* key, bool required = true) {
  if (!j.contains(key) || j[key].is_null()) return required ? fmt::format("missing '{}'", key) : "";
  if (!j[key].is_number()) return fmt::format("'{}' must be a number", key);
  if (j[key].get<double>() < 0) return fmt::format("'{}' must be >= 0", key);
  return "";
}

std::string require_string(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return fmt::format("'{}' must be a string", key);
  return "";
}

std::string check_result(const json& j) {
  if (!j.contains("mode") || !j["mode"].is_string()) return "'mode' must be a string";
  const auto mode = j["mode"].get<std::string>();
  if (mode != "cold" && mode != "warm" && mode != "aot") return "'mode' must be \"cold\", \"warm\" or \"aot\"";
  for (const char* k : {"import_s", "setup_s", "first_call_s"}) {
    if (auto e = require_number(j, k); !e.empty()) return e;
  }
  if (mode == "cold") {
    if (auto e = require_number(j, "second_call_s"); !e.empty()) return e;
  } else if (mode == "aot") {
    if (!j.contains("aot") || !j["aot"].is_object()) return "'aot' must be an object";
    for (const char* k : {"trace_s", "lower_s", "compile_s", "execute_s"})
      if (auto e = require_number(j["aot"], k); !e.empty()) return "aot: " + e;
  } else {
    if (!j.contains("calls_s") || !j["calls_s"].is_array()) return "'calls_s' must be an array";
    for (const auto& x : j["calls_s"]) {
      if (!x.is_number() || x.get<double>() < 0) return "'calls_s' must hold numbers >= 0";
    }
  }
  if (!j.contains("verify") || !j["verify"].is_object()) return "'verify' must be an object";
  if (!j["verify"].contains("ok") || !j["verify"]["ok"].is_boolean())
    return "'verify.ok' must be a boolean";
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
      return check_result(j);
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
    case MessageType::Bye:
      return "";
  }
  return "unknown type";
}
}  // namespace

std::variant<Message, std::string> parse_message(std::string_view line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::string("not valid JSON");
  if (!j.is_object()) return std::string("not a JSON object");
  if (!j.contains("type") || !j["type"].is_string()) return std::string("missing 'type'");
  static const std::pair<const char*, MessageType> kTypes[] = {
      {"hello", MessageType::Hello}, {"result", MessageType::Result}, {"skip", MessageType::Skip},
      {"error", MessageType::Error}, {"probe", MessageType::Probe},   {"ceilings", MessageType::Ceilings},
      {"bye", MessageType::Bye}};
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
