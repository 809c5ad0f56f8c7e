#pragma once
// Replication: a snapshot's (or a run's) recorded command measured again into
// a new out dir, then every correctness gate checked on both, the timings
// compared metric by metric, and DIR/replication/ written (jitbench's report
// and the seed's).
#include <functional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "results/read.h"

namespace jitbench {
// Runs `options` (the recorded command's, with this replica's out dir) with
// the original's input copies, recording `command` (the same, as text) in the
// replica's index; returns `jitbench run`'s exit code.
using MeasureRecorded = std::function<int(const RunOptions& options, const std::vector<std::string>& command,
                                          const LoadedRun& original)>;

// The replication's exit code: 0 replicated, kExitReplicaDiffers, kExitReplicaFailed,
// or the measurement's own code when it measured nothing to compare.
int replicate(const ReplicateOptions& o, const MeasureRecorded& measure);
}  // namespace jitbench
