#pragma once
// Reading an out dir back into the result model: the one place that reads an
// artifact by its keys. compare, report and validate work on what this
// returns. Reads jitbench.case.v1 to v7 (v1's missing fields take the
// meaning they had: precision default, one warm process).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "results/model.h"
#include "results/noise_record.h"
#include "results/run_info.h"

namespace jitbench {

struct IndexedCase {
  std::string id, path;
  Status status = Status::Ok;
  std::string environment;  // merged runs: the environment file it ran in ("" otherwise)
};

struct RunIndex {
  std::string jitbench_version, suite_name, suite_source, started_at, finished_at;
  std::string cwd;  // where the run was started ("" before index v2)
  std::vector<InputCopy> inputs;
  std::vector<std::string> command;
  bool complete = false;
  // The optional sections (results/index_sections.h), unset when absent.
  std::optional<ShardSection> shard;
  std::optional<std::vector<Resumption>> resumed;
  std::optional<MergedSection> merged;
  std::optional<SlurmIds> slurm;
  std::optional<Stopped> stopped;
  std::optional<GitBuild> jitbench_git;  // index v3: the build that measured it
  std::optional<MachineLabel> machine;   // index v3: the --machine label
  std::optional<std::vector<RecordedEnvironment>> environments;  // pinned environments as built
  std::optional<std::vector<InterleavedGroup>> interleaved;      // index v4: cases measured side by side
  std::optional<RecordedOptions> options;  // index v5: the run's options, typed (none before v5, or merged)
  std::vector<IndexedCase> cases;
  std::vector<FileEntry> files;
};

struct MlIndexEntry {
  std::string path, sha256;
};

// The signature a snapshot was published with: the file, its key, its signer.
struct SnapshotSignature {
  std::string file, key;
  std::optional<std::string> principal;  // none when no allowed-signers file was given
  bool operator==(const SnapshotSignature&) const = default;
};

// One published snapshot, as SITE/registry.json (jitbench.registry.v1) lists
// it; export/json/publish_json.cc writes it, read_registry reads it back.
struct RegistryEntry {
  std::string id, published_at, path, suite;
  std::string started_at, finished_at;  // the run's ("" written null)
  std::vector<std::string> command;
  std::string jitbench_version;
  GitBuild jitbench_git;  // empty strings: not recorded
  // machine: what the site groups by (key), the --machine label and the hardware
  std::string machine, machine_label, cpu_model, logical_cores;
  double memory_gib = 0;
  std::vector<std::string> gpus;
  std::string environment_digest, python_version, index_sha256, snapshot_index_sha256;
  std::size_t n_cases = 0, n_ok = 0, n_warn = 0, n_failed = 0;
  std::optional<SnapshotSignature> signature;  // null when published unsigned
  bool operator==(const RegistryEntry&) const = default;
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
// D/noise.json of `jitbench noise` (jitbench.noise.v1).
std::variant<NoiseFloor, std::string> read_noise(const std::filesystem::path& file);
std::variant<CaseResult, std::string> read_case(const std::filesystem::path& file);
std::variant<EnvironmentInfo, std::string> read_environment(const std::filesystem::path& file);
std::variant<std::vector<MlIndexEntry>, std::string> read_ml_index(const std::filesystem::path& file);
// A site's registry.json, oldest snapshot first (as published).
std::variant<std::vector<RegistryEntry>, std::string> read_registry(const std::filesystem::path& file);
// index.json, environment.json and every case file of an out dir.
std::variant<LoadedRun, std::string> read_run(const std::filesystem::path& dir);

}  // namespace jitbench
