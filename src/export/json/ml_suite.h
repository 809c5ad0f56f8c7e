#pragma once
// The published "ML suite" contract (nextstat.ml_benchmark_result.v1 and
// nextstat.ml_benchmark_suite_result.v1): per-case files, the index and the
// README snippet, written from jitbench's own result model.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {

inline constexpr const char* kMlCaseSchema = "nextstat.ml_benchmark_result.v1";
inline constexpr const char* kMlSuiteSchema = "nextstat.ml_benchmark_suite_result.v1";

// Backends the contract names; other cases are not exported.
bool in_ml_contract(const CaseResult& r);

// sha256 of the canonical JSON of config: sorted keys, "," and ":", trailing newline.
std::string canonical_config_sha256(const nlohmann::json& config);

// env: the machine (python, platform, package versions).
nlohmann::json ml_case(const CaseResult& r, const EnvironmentInfo& env);

struct MlCaseFile {
  std::string case_id;
  std::string path;    // relative to the export dir: cases/<case>.json
  std::string sha256;  // of the file as written
  const CaseResult* result;
};
nlohmann::json ml_suite_index(const std::vector<MlCaseFile>& files, bool deterministic, const EnvironmentInfo& env);
std::string ml_readme_snippet(const std::vector<MlCaseFile>& files);

}  // namespace jitbench
