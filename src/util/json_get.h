#pragma once
// Reading a field a worker sent, whatever it sent: the value when it has the
// expected type, else the fallback. nlohmann's j.value(key, fallback) throws
// when the key holds another type; a worker's message must never do that.
#include <nlohmann/json.hpp>

#include <string>

namespace jitbench {
inline bool bool_or(const nlohmann::json& j, const char* key, bool fallback) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}
inline std::string string_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}
inline nlohmann::json object_or_empty(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : nlohmann::json::object();
}
inline nlohmann::json array_or_empty(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_array() ? j[key] : nlohmann::json::array();
}
}  // namespace jitbench
