#include "results/index_sections.h"

#include <algorithm>

#include "util/build_info.h"

namespace jitbench {
GitBuild this_build() {
  const auto& b = build_info();
  return {b.describe, b.sha, b.ref, b.repository, b.dirty};
}

std::optional<std::vector<InterleavedGroup>> groups_of_kept_cases(
    const std::optional<std::vector<InterleavedGroup>>& groups, const std::set<std::string>& kept) {
  if (!groups) return std::nullopt;
  std::vector<InterleavedGroup> out;
  for (const auto& g : *groups)
    if (std::all_of(g.cases.begin(), g.cases.end(), [&](const std::string& id) { return kept.count(id) > 0; }))
      out.push_back(g);
  if (out.empty()) return std::nullopt;
  return out;
}

std::string recorded_build_hash(const RecordedEnvironment& e) {
  return e.build.is_object() ? e.build.value("hash", "") : std::string();
}
}  // namespace jitbench
