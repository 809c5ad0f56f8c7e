#pragma once
// The optional sections of index.json (schemas/jitbench.index.v*.schema.json),
// typed: what `run` (start and --resume) and `merge` record beside the cases.
// export/json/index_json.cc is the one place that writes them, results/read.cc the
// one that reads them back (every index version).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/recorded_options.h"
#include "plan/shard.h"

namespace jitbench {

// "jitbench_git": the commit a jitbench was built from (empty strings: none).
struct GitBuild {
  std::string describe, sha, ref, repository;
  bool dirty = false;
  bool operator==(const GitBuild&) const = default;
};
// This jitbench's own build (util/build_info.h).
GitBuild this_build();

// "slurm": the Slurm ids the environment gave (SLURM_JOB_ID, ...), by name.
using SlurmIds = std::map<std::string, std::string>;

// One entry of "resumed": a `run --resume` of the run.
struct Resumption {
  std::string at;  // "" when deterministic (written null)
  std::size_t kept = 0;
  std::vector<std::string> remeasured;  // the cases measured by this resumption, in order
  std::optional<SlurmIds> slurm;        // the Slurm job it ran in (a requeued task, say)
  std::optional<GitBuild> jitbench_git;  // the build that resumed it, when not the one that started it
  bool operator==(const Resumption&) const = default;
};

// One shard of "merged".
struct MergedShard {
  std::string dir, shard, index_sha256;
  std::size_t cases = 0;
  std::string environment;  // the environment file its cases point at
  std::optional<SlurmIds> slurm;
  std::optional<std::vector<Resumption>> resumed;  // the shard's own resumptions
  bool operator==(const MergedShard&) const = default;
};

// "merged": what `jitbench merge` was made of, and what was missing.
struct MergedSection {
  std::vector<MergedShard> shards;
  std::vector<std::string> missing_shards, missing_cases;  // "K/N"; case ids
  std::vector<std::string> environments;                   // the environment files, each once (sorted)
  bool operator==(const MergedSection&) const = default;
};

// One entry of "environments": a pinned environment as it was built.
struct RecordedEnvironment {
  std::string name;
  std::vector<std::string> requirements;
  std::string python_request;
  std::map<std::string, std::string> variables;
  std::optional<std::string> file;  // its manifest (environments/env-NAME.json); none when it was not built
  bool ok = false;
  std::string reason;  // why it was not built ("" written null)
  nlohmann::json build = nlohmann::json::object();  // the builder's record (env/environments.h), verbatim
  bool operator==(const RecordedEnvironment&) const = default;
};

// What the builder's record says the environment's content hash is ("" when it has none).
std::string recorded_build_hash(const RecordedEnvironment& e);

// "machine": the --machine label.
struct MachineLabel {
  std::string label;
  bool operator==(const MachineLabel&) const = default;
};

// One entry of "inputs": a file the run read and keeps a copy of.
struct InputCopy {
  std::string kind, source, path, sha256;  // source: absolute, as read; path: the copy, in the out dir
  bool operator==(const InputCopy&) const = default;
};

// "cwd" and "inputs": where the run was started and the copies of what it read.
struct InputRecord {
  std::optional<std::string> cwd;  // none before index v2
  std::vector<InputCopy> inputs;   // none: the section is not written
  bool operator==(const InputRecord&) const = default;
};

// "stopped": why a run ended before its plan did ("interrupted", "write_failed",
// "starting", "probe_failed").
struct Stopped {
  std::string reason, detail;
  bool operator==(const Stopped&) const = default;
};

// One entry of "interleaved" (index v4): cases measured side by side, their
// cold processes round-robin so that a drift of the machine lands on each.
struct InterleavedStep {
  std::size_t side = 0;  // index into `cases`
  int cold = 0;          // that case's cold process, from 0
  bool operator==(const InterleavedStep&) const = default;
};
struct InterleavedGroup {
  std::vector<std::string> cases;     // their ids, in the order of a round
  std::vector<std::string> runs;      // the out dir each case was written to ("" for this one); empty: all here
  std::vector<InterleavedStep> order;  // the cold processes, in the order they ran
  bool operator==(const InterleavedGroup&) const = default;
};

// A resumed run's groups: those whose every case was kept as it was. A group
// with a case measured again is dropped: that case's cold logs are written
// anew, so its recorded order no longer names them, and the cases measured
// now are recorded as the groups they are measured in. Unset when none is left.
std::optional<std::vector<InterleavedGroup>> groups_of_kept_cases(
    const std::optional<std::vector<InterleavedGroup>>& groups, const std::set<std::string>& kept);

// Every optional section jitbench writes into an index; absent ones unset.
struct IndexSections {
  std::optional<ShardSection> shard;
  InputRecord inputs;
  std::optional<SlurmIds> slurm;
  std::optional<GitBuild> jitbench_git;
  std::optional<MachineLabel> machine;
  std::optional<std::vector<RecordedEnvironment>> environments;
  std::optional<std::vector<Resumption>> resumed;
  std::optional<MergedSection> merged;
  std::optional<std::vector<InterleavedGroup>> interleaved;
  std::optional<RecordedOptions> options;  // index v5: what --resume and replicate measure again from
  bool operator==(const IndexSections&) const = default;
};

}  // namespace jitbench
