#pragma once
// What `jitbench publish` writes into a site: each snapshot's registry entry
// (SITE/registry.json, jitbench.registry.v1) and its seed-format index
// (snapshot_index.json, nextstat.snapshot_index.v1: path, bytes, sha256 of
// every artifact), for the seed program's tools.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "results/read.h"

namespace jitbench {
inline constexpr const char* kRegistrySchema = "jitbench.registry.v1";
inline constexpr const char* kSeedSnapshotIndexSchema = "nextstat.snapshot_index.v1";

// The facts of one snapshot, gathered by the publish command.
struct SnapshotFacts {
  std::string id, published_at;
  std::string path;  // the snapshot's directory, relative to the site
  const LoadedRun* run = nullptr;
  std::string machine_key, environment_digest, index_sha256, snapshot_index_sha256;
  std::optional<SnapshotSignature> signature;  // none: published unsigned
};

// sha256 of the run's software pins: its own interpreter's and those of every
// pinned environment it ran in (environments/*.json), as results/run_info.h
// environment_pins defines them. Equal digests: the same software.
std::string environment_digest(const LoadedRun& run);
// The pins themselves: {"run": ..., "environments": {file: ...}}.
nlohmann::json software_pins(const LoadedRun& run);
// The --machine label the run was given ("" when none).
std::string machine_label(const LoadedRun& run);

// The registry entry of a snapshot, and the registry (entries oldest first) as written.
RegistryEntry registry_entry(const SnapshotFacts& f);
nlohmann::json registry_entry_json(const RegistryEntry& e);
nlohmann::json registry_json(const std::vector<RegistryEntry>& entries, const std::string& updated_at);

// The seed's snapshot index of a run: every file its index lists, plus the
// index itself (and its signature when given), under prefix ("run/").
nlohmann::json seed_snapshot_index(const std::string& snapshot_id, const std::string& generated_at,
                                   const LoadedRun& run, const std::vector<FileEntry>& artifacts,
                                   const std::string& machine_key, const std::string& environment_digest);
}  // namespace jitbench
