#pragma once
// CaseResult -> cases/<case>.json (schemas/jitbench.case.v7.schema.json).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {
inline constexpr const char* kCaseSchema = "jitbench.case.v7";
nlohmann::json run_json(const RunRecord& r);
nlohmann::json case_json(const CaseResult& r);
// What the case's schema says is wrong with case_json(r), one line each; empty when valid.
std::vector<std::string> case_json_problems(const CaseResult& r);
}  // namespace jitbench
