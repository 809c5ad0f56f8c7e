#include "export/json/envs_json.h"

#include "export/json/json_util.h"
#include "util/build_info.h"

namespace jitbench {
namespace {
nlohmann::json cached_environment_json(const CachedEnvironment& e) {
  return {{"hash", e.hash},
          {"dir", e.dir.string()},
          {"complete", e.complete},
          {"name", text_or_null(e.name)},
          {"names", e.names},
          {"requirements", e.requirements},
          {"held", text_or_null(e.held)},
          {"built", text_or_null(e.built)},
          {"python_version", text_or_null(e.python_version)},
          {"bytes", e.bytes},
          {"freed_bytes", e.freed_bytes},
          {"last_used", text_or_null(e.last_used)},
          {"runs", e.runs},
          {"current", e.current ? nlohmann::json(*e.current) : nlohmann::json(nullptr)},
          {"in_use", e.in_use}};
}
}  // namespace

nlohmann::json envs_json(const EnvironmentCache& c) {
  nlohmann::json envs = nlohmann::json::array();
  for (const auto& e : c.environments) envs.push_back(cached_environment_json(e));
  return {{"schema_version", kEnvsSchema}, {"jitbench_version", jitbench_version()},
          {"root", c.root.string()},       {"exists", c.exists},
          {"made_by_jitbench", c.marked},  {"total_bytes", c.total_bytes},
          {"environments", envs},          {"foreign", c.foreign}};
}
}  // namespace jitbench
