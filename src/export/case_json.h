#pragma once
// CaseResult -> cases/<case>.json (schemas/jitbench.case.v2.schema.json).
#include <nlohmann/json.hpp>

#include "results/model.h"

namespace jitbench {
inline constexpr const char* kCaseSchema = "jitbench.case.v2";
nlohmann::json run_json(const RunRecord& r);
nlohmann::json case_json(const CaseResult& r);
}  // namespace jitbench
