#pragma once
// Turns what one worker process left behind (exit, messages) into a RunRecord
// with a status and reason. Pure: tested without spawning anything.
#include "results/model.h"
#include "run/subprocess.h"

namespace jitbench {
RunRecord interpret_run(const ProcessResult& p, const std::string& mode, int index, double timeout_s);
}
