#pragma once
// index.json (schemas/jitbench.index.v1.schema.json): the run's cases and the
// sha256 and size of every file it holds.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {
inline constexpr const char* kIndexSchema = "jitbench.index.v5";
// "jitbench_git" of a build, as the index, the registry and the replication report write it.
nlohmann::json git_build_json(const GitBuild& g);
// The same, or null for a run recorded before index v3.
nlohmann::json git_build_or_null(const std::optional<GitBuild>& g);
// A section's values in a message, as the index writes them (compact JSON).
std::string json_value_text(const std::vector<std::string>& list);
std::string json_value_text(const std::map<std::string, std::string>& map);
// The optional sections, each as the index writes it (the key: the section's name).
nlohmann::json index_sections_json(const IndexSections& s);
// finished_at: "" when the run is incomplete or deterministic; stopped: why the
// run ended before its plan did (results/index_sections.h).
nlohmann::json index_json(const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                          const std::string& finished_at, const std::vector<FileEntry>& files,
                          const Stopped* stopped = nullptr);
}  // namespace jitbench
