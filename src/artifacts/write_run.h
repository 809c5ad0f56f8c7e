#pragma once
// Writes everything a run has measured so far; called after every case so an
// interrupted run keeps its results. The index is written last. The documents
// themselves come from the emitters in export/.
#include <vector>

#include "artifacts/out_dir.h"
#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {
void write_run_artifacts(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete);
}  // namespace jitbench
