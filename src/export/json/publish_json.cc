#include "export/json/publish_json.h"

#include <fmt/format.h>

#include "export/json/index_json.h"
#include "export/json/json_util.h"
#include "util/sha256.h"

namespace jitbench {
using nlohmann::json;

json software_pins(const LoadedRun& run) {
  json pins = {{"run", environment_pins(run.environment.manifest)}, {"environments", json::object()}};
  for (const auto& f : run.index.files) {
    if (f.path.rfind("environments/", 0) != 0) continue;
    auto env = read_environment(run.dir / f.path);
    if (auto* e = std::get_if<EnvironmentInfo>(&env)) pins["environments"][f.path] = environment_pins(e->manifest);
  }
  return pins;
}

std::string environment_digest(const LoadedRun& run) { return sha256_hex(software_pins(run).dump()); }

std::string machine_label(const LoadedRun& run) { return run.index.machine ? run.index.machine->label : ""; }

RegistryEntry registry_entry(const SnapshotFacts& f) {
  const LoadedRun& r = *f.run;
  const auto& env = r.environment;
  RegistryEntry e;
  e.id = f.id;
  e.published_at = f.published_at;
  e.path = f.path;
  e.suite = r.index.suite_name;
  e.started_at = r.index.started_at;
  e.finished_at = r.index.finished_at;
  e.command = r.index.command;
  e.jitbench_version = r.index.jitbench_version;
  e.jitbench_git = r.index.jitbench_git.value_or(GitBuild{});  // empty strings: not recorded
  e.machine = f.machine_key;
  e.machine_label = machine_label(r);
  e.cpu_model = env.cpu_model;
  e.logical_cores = env.logical_cores;
  e.memory_gib = env.memory_total_gib;
  e.gpus = env.gpus;
  e.environment_digest = f.environment_digest;
  e.python_version = env.python_version;
  e.index_sha256 = f.index_sha256;
  e.snapshot_index_sha256 = f.snapshot_index_sha256;
  e.n_cases = r.cases.size();
  for (const auto& c : r.cases) (c.status == Status::Ok ? e.n_ok : c.status == Status::Warn ? e.n_warn : e.n_failed)++;
  e.signature = f.signature;
  return e;
}

json registry_entry_json(const RegistryEntry& e) {
  const json signature = e.signature ? json{{"file", e.signature->file}, {"key", e.signature->key},
                                            {"principal", text_or_null(e.signature->principal.value_or(""))}}
                                     : json();
  return {{"id", e.id},
          {"published_at", e.published_at},
          {"path", e.path},
          {"suite", e.suite},
          {"run", {{"started_at", text_or_null(e.started_at)},
                   {"finished_at", text_or_null(e.finished_at)},
                   {"command", e.command}}},
          {"jitbench_version", e.jitbench_version},
          {"jitbench_git", git_build_json(e.jitbench_git)},
          {"machine", {{"key", e.machine},
                       {"label", text_or_null(e.machine_label)},
                       {"cpu_model", e.cpu_model},
                       {"logical_cores", e.logical_cores},
                       {"memory_gib", e.memory_gib},
                       {"gpus", e.gpus}}},
          {"environment_digest", e.environment_digest},
          {"python_version", e.python_version},
          {"index_sha256", e.index_sha256},
          {"snapshot_index_sha256", e.snapshot_index_sha256},
          {"cases", {{"n", e.n_cases}, {"ok", e.n_ok}, {"warn", e.n_warn}, {"failed", e.n_failed}}},
          {"signature", signature}};
}

json registry_json(const std::vector<RegistryEntry>& entries, const std::string& updated_at) {
  json list = json::array();
  for (const auto& e : entries) list.push_back(registry_entry_json(e));
  return {{"schema_version", kRegistrySchema}, {"updated_at", updated_at}, {"snapshots", list}};
}

namespace {
std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}
}  // namespace

json seed_snapshot_index(const std::string& snapshot_id, const std::string& generated_at, const LoadedRun& run,
                         const std::vector<FileEntry>& artifacts, const std::string& machine_key,
                         const std::string& environment_digest) {
  const GitBuild git = run.index.jitbench_git.value_or(GitBuild{});
  json files = json::array();
  for (const auto& a : artifacts) files.push_back({{"path", a.path}, {"bytes", a.bytes}, {"sha256", a.sha256}});
  const auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("unknown") : s; };
  return {{"schema_version", kSeedSnapshotIndexSchema},
          {"generated_at", generated_at},
          {"snapshot_id", snapshot_id},
          {"suite", run.index.suite_name.empty() ? std::string("unnamed") : run.index.suite_name},
          {"git", {{"sha", or_unknown(git.sha)}, {"ref", or_unknown(git.ref)}, {"repository", or_unknown(git.repository)}}},
          {"workflow", {{"tool", "jitbench"},
                        {"jitbench_version", run.index.jitbench_version},
                        {"jitbench_describe", or_unknown(git.describe)},
                        {"command", joined(run.index.command)},
                        {"machine", machine_key},
                        {"environment_digest", environment_digest},
                        {"started_at", run.index.started_at},
                        {"finished_at", run.index.finished_at}}},
          {"artifacts", files}};
}
}  // namespace jitbench
