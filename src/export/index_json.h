#pragma once
// index.json (schemas/jitbench.index.v1.schema.json): the run's cases and the
// sha256 and size of every file it holds.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {
inline constexpr const char* kIndexSchema = "jitbench.index.v3";
// Why a run ended before its plan did: reason "interrupted" or "write_failed".
struct Stopped {
  std::string reason, detail;
};
// finished_at: "" when the run is incomplete or deterministic.
nlohmann::json index_json(const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                          const std::string& finished_at, const std::vector<FileEntry>& files,
                          const Stopped* stopped = nullptr);
}  // namespace jitbench
