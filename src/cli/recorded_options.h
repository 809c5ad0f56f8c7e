#pragma once
// The command line's RunOptions and the typed options an index records
// (config/recorded_options.h), one into the other: what is recorded is what
// is measured again, field by field.
#include "cli/options.h"
#include "config/recorded_options.h"

namespace jitbench {

// Every option that decides what a run plans and measures; not where it
// writes (--out-dir), how much it says (--quiet), nor measure's one-off
// hand-overs (the copies its shim was made from, its workload's record).
RecordedOptions recorded_options(const RunOptions& o);
// The options a recorded run is measured again with (out_dir and quiet unset).
RunOptions run_options(const RecordedOptions& r);

}  // namespace jitbench
