#pragma once
// Writes everything a run has measured so far; called after every case so an
// interrupted run keeps its results. The index is written last.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "artifacts/out_dir.h"
#include "report/markdown.h"
#include "results/model.h"

namespace jitbench {

struct RunHeader {
  RunInfo info;
  std::vector<std::string> argv;
  std::string started_at;  // "" when deterministic
  bool deterministic = false;
};

void write_run_artifacts(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete);

}  // namespace jitbench
