#pragma once
// The published "ML suite" contract (nextstat.ml_benchmark_result.v1 and
// nextstat.ml_benchmark_suite_result.v1): per-case files, the index and the
// README snippet, written from jitbench's own result model.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {

inline constexpr const char* kMlCaseSchema = "nextstat.ml_benchmark_result.v1";
inline constexpr const char* kMlSuiteSchema = "nextstat.ml_benchmark_suite_result.v1";

// Backends the contract names; other cases are not exported.
bool in_ml_contract(const CaseResult& r);

// sha256 of the canonical JSON of config: sorted keys, "," and ":", trailing newline.
std::string canonical_config_sha256(const nlohmann::json& config);

// env is jitbench's environment manifest (for python, platform, versions).
nlohmann::json ml_case(const CaseResult& r, const nlohmann::json& env);

struct MlCaseFile {
  std::string case_id;
  std::string path;    // relative to the export dir: cases/<case>.json
  std::string sha256;  // of the file as written
  const CaseResult* result;
};
nlohmann::json ml_suite_index(const std::vector<MlCaseFile>& files, bool deterministic, const nlohmann::json& env);
std::string ml_readme_snippet(const nlohmann::json& index, const std::vector<MlCaseFile>& files);

// The file text jitbench writes for a JSON document (pretty, trailing newline).
std::string json_text(const nlohmann::json& j);

}  // namespace jitbench
