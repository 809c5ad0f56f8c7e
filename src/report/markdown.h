#pragma once
// summary.md: the human summary of a run, read from the one result model.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {
struct RunInfo {
  std::string suite_name;
  std::string suite_source;
  std::string command;     // as typed
  std::size_t n_planned = 0;
  nlohmann::json environment;  // the manifest
};
// analysis: the analysis.json document (phases, cache modes, break-even, memory).
std::string markdown_summary(const RunInfo& info, const std::vector<CaseResult>& cases,
                             const nlohmann::json& analysis);
}  // namespace jitbench
