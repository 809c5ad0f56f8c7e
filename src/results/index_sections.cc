#include "results/index_sections.h"

#include "util/build_info.h"

namespace jitbench {
GitBuild this_build() {
  const auto& b = build_info();
  return {b.describe, b.sha, b.ref, b.repository, b.dirty};
}

std::string recorded_build_hash(const RecordedEnvironment& e) {
  return e.build.is_object() ? e.build.value("hash", "") : std::string();
}
}  // namespace jitbench
