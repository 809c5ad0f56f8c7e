#pragma once
// Files compiled into the binary (schemas/*.json, suites/default.toml).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jitbench {
std::optional<std::string_view> resource(std::string_view name);
std::vector<std::string> resource_names();
}  // namespace jitbench
