#pragma once
// What `jitbench replicate` writes under the replica's replication/:
// replication.json (jitbench.replication.v2: every gate, every case's answer,
// per case × metric the replica/original ratio with its CI and verdict),
// replication.md, the seed's nextstat.replication_report.v1, and the
// deterministic part of each run (experiment/original/, experiment/replica/:
// the plan, the inputs, the software pins, each case's verified answer — one
// file each), which the seed report compares byte for byte.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "compare/replication.h"
#include "results/read.h"
#include "util/fs.h"

namespace jitbench {
inline constexpr const char* kReplicationSchema = "jitbench.replication.v2";
inline constexpr const char* kSeedReplicationSchema = "nextstat.replication_report.v1";

struct Gate {
  std::string name;
  bool passed = false;
  std::string detail;
};

struct ReplicationFacts {
  const LoadedRun* original = nullptr;
  const LoadedRun* replica = nullptr;
  std::string original_id, original_snapshot_index_sha256, replica_id, generated_at;
  std::string environment_note;                    // how the replica's software was recreated
  std::vector<std::string> environment_differences;  // original vs replica (hardware and software)
  std::vector<Gate> gates;
  std::vector<std::pair<compare::CaseAnswer, compare::CaseAnswer>> answers;  // original, replica (by case)
  compare::TimingReplication timings;
  double tolerance_pct = 10, alpha = 0.05;
};

// The deterministic part of a run, one file each, paths relative to its side.
std::vector<FileWrite> experiment_files(const LoadedRun& run);
// "replicated", "differs in N metrics" or "failed gates: a, b".
std::string replication_verdict(const ReplicationFacts& f);
nlohmann::json replication_json(const ReplicationFacts& f);
std::string replication_md(const ReplicationFacts& f);
nlohmann::json seed_replication_report(const ReplicationFacts& f, const std::vector<FileWrite>& original_files,
                                       const std::vector<FileWrite>& replica_files);
}  // namespace jitbench
