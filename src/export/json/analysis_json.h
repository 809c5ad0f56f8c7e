#pragma once
// Analysis -> analysis.json (schemas/jitbench.analysis.v5.schema.json).
#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "compare/releases.h"

namespace jitbench {
inline constexpr const char* kAnalysisSchema = "jitbench.analysis.v5";
nlohmann::json analysis_json(const Analysis& a, const std::vector<compare::ReleaseRow>& releases = {});
}  // namespace jitbench
