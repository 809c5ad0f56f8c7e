#pragma once
// Which release of a package made a metric worse: each step an ordinary
// `jitbench run` of the selection in an environment pinned to one release
// (OUT/steps/), the ends measured and the regression confirmed first, the
// releases between halved, the boundary measured again. OUT/bisect.json has
// every step (export/json/bisect_json.cc).
#include "artifacts/out_dir.h"
#include "cli/options.h"
#include "commands/bisection/git_range.h"

namespace jitbench {
struct StepInterrupted {};  // a signal stopped a step: the bisection stops, keeping its steps

// The bisection into out; its exit code. Throws UserError for ends that cannot
// be compared, StepInterrupted when a signal stopped a step. With --git, commits
// are the candidates git_candidates checked (read once, before out was made).
int bisect(const BisectOptions& o, const OutDir& out, const std::vector<GitCommit>& commits = {});
}  // namespace jitbench
