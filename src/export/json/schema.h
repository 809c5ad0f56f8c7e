#pragma once
// JSON Schema validation against the schemas compiled into the binary
// (schemas/<schema_version>.schema.json), using valijson.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace jitbench {
// True when a schema for this schema_version is embedded.
bool has_schema(const std::string& schema_version);
// Violations, one line each ("<json path>: <what>"); empty when valid.
std::vector<std::string> validate_against(const nlohmann::json& doc, const std::string& schema_version);
}  // namespace jitbench
