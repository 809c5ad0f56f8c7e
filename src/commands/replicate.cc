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
  return replicate(o, [](const std::vector<std::string>& argv, const LoadedRun& original) {
    RunOptions ro = parse_run_command(argv);
    const InputCopies inputs = use_recorded_inputs(original.index, original.dir, ro);
    std::vector<std::string> copy = argv;
    std::vector<char*> ptrs;
    for (auto& x : copy) ptrs.push_back(x.data());
    ptrs.push_back(nullptr);
    return cmd_run(ro, static_cast<int>(copy.size()), ptrs.data(), inputs);
  });
}

}  // namespace jitbench
