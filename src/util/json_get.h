#pragma once
// Reading a field of a document jitbench did not write (a worker's message, a
// probe, an artifact being read back), whatever it holds: the value when it has
// the expected type, else nothing or the fallback. nlohmann's j.value(key, x)
// and j.at(key).get<T>() throw when the field holds another type; a worker's
// message must never do that.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace jitbench {
namespace json_get_detail {
inline const nlohmann::json* at(const nlohmann::json& j, const char* pointer) {
  const auto ptr = nlohmann::json::json_pointer(pointer);
  return j.contains(ptr) ? &j.at(ptr) : nullptr;
}
}  // namespace json_get_detail

// By JSON pointer ("/memory/device_peak_bytes").
inline std::optional<double> number_at(const nlohmann::json& j, const char* pointer) {
  const auto* v = json_get_detail::at(j, pointer);
  return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
}
inline std::optional<bool> bool_at(const nlohmann::json& j, const char* pointer) {
  const auto* v = json_get_detail::at(j, pointer);
  return v && v->is_boolean() ? std::optional<bool>(v->get<bool>()) : std::nullopt;
}
inline std::optional<std::string> string_at(const nlohmann::json& j, const char* pointer) {
  const auto* v = json_get_detail::at(j, pointer);
  return v && v->is_string() ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}

// By key of an object.
inline bool bool_or(const nlohmann::json& j, const char* key, bool fallback) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}
inline std::string string_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}
inline std::optional<double> number_or_none(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? std::optional<double>(j[key].get<double>())
                                                                 : std::nullopt;
}
inline nlohmann::json object_or_empty(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : nlohmann::json::object();
}
inline nlohmann::json array_or_empty(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_array() ? j[key] : nlohmann::json::array();
}
}  // namespace jitbench
