#pragma once
// A run's options as jitbench parsed them, typed: index v5's "options"
// section. `run --resume`, `replicate` and `compare --remeasure` measure again
// from these, never by parsing the recorded command line (which the index
// keeps for people to read). cli/recorded_options.h turns the command line's
// RunOptions into these and back; paths are as given (relative ones against
// the index's "cwd").
#include <optional>
#include <string>
#include <vector>

#include "config/names.h"

namespace jitbench {

// A user file `measure` kept under inputs/targets/ (cli/options.h, KeptFile).
struct RecordedKeptFile {
  std::string source;  // absolute, where the user had it
  std::string file;    // its name under inputs/targets/
  bool operator==(const RecordedKeptFile&) const = default;
};

struct RecordedShard {
  int index = 1, count = 1;  // K and N of --shard K/N
  bool operator==(const RecordedShard&) const = default;
};

struct RecordedOptions {
  std::string suite_file, python, costs_dir, machine;
  bool deterministic = false;
  std::optional<int> cold_runs, warm_iters, warm_runs, min_runs, max_runs;
  std::optional<double> timeout_s, target_ci_pct, max_time_s;
  std::vector<std::string> cases, backends;
  std::vector<CachePolicy> cache_policies;
  std::vector<Precision> precisions;
  std::vector<std::string> workload_paths;  // measure's: its workload file, read back from inputs/
  std::vector<RecordedKeptFile> kept_files;  // measure's: the user's files its workload loads
  std::string ceilings = "auto";            // auto, on, off
  std::optional<RecordedShard> shard;
  std::vector<std::string> envs, env_vars, find_links;
  bool no_index = false, no_interleave = false, anatomy = false, count = false;
  std::vector<int> affinity;
  std::optional<int> anatomy_runs, count_runs, jobs;
  std::string count_source;
  bool operator==(const RecordedOptions&) const = default;
};

}  // namespace jitbench
