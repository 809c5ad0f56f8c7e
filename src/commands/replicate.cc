// `jitbench replicate SNAPSHOT --out-dir DIR`: the snapshot's recorded
// command, plan, inputs and pinned environments measured again into DIR (an
// ordinary run dir), then DIR/replication/: every correctness gate
// re-checked, the environment differences, per case × metric the
// replica/original ratio with its CI and verdict, and the seed's report. The
// work is commands/replication/; this file gives it `jitbench run` to measure with.
#include "commands/commands.h"
#include "commands/replication/replication.h"

namespace jitbench {

int cmd_replicate(const ReplicateOptions& o) {
  return replicate(o, [](RunOptions options, const std::vector<std::string>& command, const LoadedRun& original) {
    add_measured_workload(original.index, options);
    const InputCopies inputs = use_recorded_inputs(original.index, original.dir, options);
    return cmd_run(options, command, inputs);
  });
}

}  // namespace jitbench
