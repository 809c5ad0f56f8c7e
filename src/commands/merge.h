#pragma once
// What `jitbench merge` decides about its shards before it writes anything
// (commands/merge.cc; merge_test.cc builds shards in memory): whether they can
// be one run, which environment file each shard's cases point at, the pinned
// environments listed once, the command that measures a missing shard.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "results/read.h"

namespace jitbench::merging {

struct Shard {
  std::string dir;
  LoadedRun run;
  int index = 0, count = 0;
  std::string digest, label, index_sha256, environment_text;
  std::set<std::string> listed;           // the files its index lists (what validate checked)
  std::vector<RecordedEnvironment> environments;  // its pinned environments as built (none: empty)
};

// A shard's out dir, verified as `validate` verifies it; UserError when it is none.
Shard load_shard(const std::string& dir);
// What one case's samples are (counts or stopping rule, timeout, seed).
std::string settings_of(const CaseResult& c);
// Shards that can be one run: same suite, plan, jitbench, settings, inputs and
// pinned environments; no shard or case twice. UserError naming both shards otherwise.
void check_consistent(const std::vector<Shard>& shards);
// The command that measures a missing shard: the first shard's own, for shard k.
std::string command_for_shard(const Shard& like, int k, const std::string& out_dir);
// The pinned environments of every shard, once each (built in any shard: listed as built).
std::vector<RecordedEnvironment> union_of_environments(const std::vector<Shard>& shards);
// Per shard, its environment file: "environment.json" for every shard when
// their manifests agree, else environments/env-K.json, K per distinct manifest.
std::vector<std::string> group_environments(const std::vector<Shard>& shards, std::size_t* distinct);

}  // namespace jitbench::merging
