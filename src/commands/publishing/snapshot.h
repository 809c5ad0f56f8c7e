#pragma once
// One snapshot of a site: its id (the run's start and the index's sha256, or
// --id), the run's files copied under SITE/snapshots/ID/run, its report and
// its seed-format snapshot index, built beside and moved in one step.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "cli/options.h"
#include "export/json/publish_json.h"
#include "results/read.h"

namespace jitbench {
// --id, or <run start>-<the index's sha256 prefix>: content-addressed.
std::string snapshot_id(const PublishOptions& o, const LoadedRun& run, const std::string& index_sha);
// Who signed the run (none when unsigned); a signature that does not verify is refused.
std::optional<SnapshotSignature> signature_of(const PublishOptions& o, const std::filesystem::path& run);

struct Published {
  std::string id, dir;
  bool has_report = false;
};
// The snapshot's directory, complete, under its id.
Published write_snapshot(const PublishOptions& o, const LoadedRun& run, SnapshotFacts& f,
                         const std::filesystem::path& site);
}  // namespace jitbench
