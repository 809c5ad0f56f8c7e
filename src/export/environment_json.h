#pragma once
// environment.json (schemas/jitbench.environment.v1.schema.json): the host,
// the interpreter the worker probe reported, and the compiler environment.
#include <nlohmann/json.hpp>

#include "env/host.h"

namespace jitbench {
inline constexpr const char* kEnvironmentSchema = "jitbench.environment.v1";
// probe: the worker's probe message; captured_at "" for none (deterministic runs).
nlohmann::json environment_json(const HostFacts& host, const nlohmann::json& probe,
                                const std::map<std::string, std::string>& env, const std::string& captured_at);
}  // namespace jitbench
