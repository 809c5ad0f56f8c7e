#pragma once
// `jitbench envs list --json` (schemas/jitbench.envs.v1.schema.json): the
// environment cache as env/env_cache.h reads it.
#include <nlohmann/json.hpp>

#include "env/env_cache.h"

namespace jitbench {
inline constexpr const char* kEnvsSchema = "jitbench.envs.v1";

nlohmann::json envs_json(const EnvironmentCache& cache);
}  // namespace jitbench
