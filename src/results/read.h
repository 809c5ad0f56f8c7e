#pragma once
// Reading an out dir back into the result model: the one place that reads an
// artifact by its keys. compare, report and validate work on what this
// returns. Reads jitbench.case.v1 to v4 (v1's missing fields take the
// meaning they had: precision default, one warm process).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "results/model.h"
#include "results/run_info.h"

namespace jitbench {

struct IndexedCase {
  std::string id, path;
  Status status = Status::Ok;
  std::string environment;  // merged runs: the environment file it ran in ("" otherwise)
};

// A file the run read and keeps a copy of (index "inputs").
struct InputCopy {
  std::string kind, source, path, sha256;  // source: absolute, as read; path: the copy, in the out dir
};

struct RunIndex {
  std::string jitbench_version, suite_name, suite_source, started_at, finished_at;
  std::string cwd;  // where the run was started ("" before index v2)
  std::vector<InputCopy> inputs;
  std::vector<std::string> command;
  bool complete = false;
  nlohmann::json shard, resumed, merged, slurm, stopped;  // optional sections (null when absent)
  nlohmann::json jitbench_git, machine;  // index v3: the build that measured it, the --machine label
  nlohmann::json environments;  // pinned environments as built (null when the run had none)
  std::vector<IndexedCase> cases;
  std::vector<FileEntry> files;
};

struct MlIndexEntry {
  std::string path, sha256;
};

// One published snapshot, as SITE/registry.json (jitbench.registry.v1) lists it.
struct RegistryEntry {
  std::string id, published_at, started_at, suite, path, machine, environment_digest, index_sha256;
  nlohmann::json raw;  // the entry as written, re-written unchanged when the registry grows
};

struct LoadedRun {
  std::filesystem::path dir;
  RunIndex index;
  EnvironmentInfo environment;
  std::vector<CaseResult> cases;  // in index order
};

// The measured times a record shares with the worker's result message (same
// keys in both): import/setup/first/second/total, calls_s, ttfr_includes_import.
// A key that is absent or not a number stays unset.
void read_measured_times(const nlohmann::json& j, RunRecord& r);

// Each returns the value, or a one-line error naming the file and the problem.
std::variant<RunIndex, std::string> read_index(const std::filesystem::path& file);
std::variant<CaseResult, std::string> read_case(const std::filesystem::path& file);
std::variant<EnvironmentInfo, std::string> read_environment(const std::filesystem::path& file);
std::variant<std::vector<MlIndexEntry>, std::string> read_ml_index(const std::filesystem::path& file);
// A site's registry.json, oldest snapshot first (as published).
std::variant<std::vector<RegistryEntry>, std::string> read_registry(const std::filesystem::path& file);
// index.json, environment.json and every case file of an out dir.
std::variant<LoadedRun, std::string> read_run(const std::filesystem::path& dir);

}  // namespace jitbench
