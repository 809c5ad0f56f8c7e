#pragma once
#include <string>

namespace jitbench {
// ISO 8601 UTC timestamp of now.
std::string utc_now();
}  // namespace jitbench
