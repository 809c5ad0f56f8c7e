#include "export/publish_json.h"

#include <fmt/format.h>

#include "export/json_util.h"
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

std::string machine_label(const LoadedRun& run) {
  const auto& m = run.index.machine;
  return m.is_object() && m.contains("label") && m["label"].is_string() ? m["label"].get<std::string>() : "";
}

namespace {
json git_or_unknown(const LoadedRun& run) {
  const auto& g = run.index.jitbench_git;
  if (g.is_object()) return g;
  return {{"describe", ""}, {"sha", ""}, {"ref", ""}, {"repository", ""}, {"dirty", false}};
}

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}
}  // namespace

json registry_entry(const SnapshotFacts& f) {
  const LoadedRun& r = *f.run;
  const auto& e = r.environment;
  int ok = 0, warn = 0, failed = 0;
  for (const auto& c : r.cases) (c.status == Status::Ok ? ok : c.status == Status::Warn ? warn : failed)++;
  const auto label = machine_label(r);
  return {{"id", f.id},
          {"published_at", f.published_at},
          {"path", f.path},
          {"suite", r.index.suite_name},
          {"run", {{"started_at", text_or_null(r.index.started_at)},
                   {"finished_at", text_or_null(r.index.finished_at)},
                   {"command", r.index.command}}},
          {"jitbench_version", r.index.jitbench_version},
          {"jitbench_git", git_or_unknown(r)},
          {"machine", {{"key", f.machine_key},
                       {"label", text_or_null(label)},
                       {"cpu_model", e.cpu_model},
                       {"logical_cores", e.logical_cores},
                       {"memory_gib", e.memory_total_gib},
                       {"gpus", e.gpus}}},
          {"environment_digest", f.environment_digest},
          {"python_version", e.python_version},
          {"index_sha256", f.index_sha256},
          {"snapshot_index_sha256", f.snapshot_index_sha256},
          {"cases", {{"n", r.cases.size()}, {"ok", ok}, {"warn", warn}, {"failed", failed}}},
          {"signature", f.signature}};
}

json registry_json(const std::vector<json>& entries, const std::string& updated_at) {
  return {{"schema_version", kRegistrySchema}, {"updated_at", updated_at}, {"snapshots", entries}};
}

json seed_snapshot_index(const std::string& snapshot_id, const std::string& generated_at, const LoadedRun& run,
                         const std::vector<FileEntry>& artifacts, const std::string& machine_key,
                         const std::string& environment_digest) {
  const json git = git_or_unknown(run);
  json files = json::array();
  for (const auto& a : artifacts) files.push_back({{"path", a.path}, {"bytes", a.bytes}, {"sha256", a.sha256}});
  const auto str = [](const json& j, const char* k) {
    return j.contains(k) && j[k].is_string() && !j[k].get<std::string>().empty() ? j[k].get<std::string>()
                                                                                   : std::string("unknown");
  };
  return {{"schema_version", kSeedSnapshotIndexSchema},
          {"generated_at", generated_at},
          {"snapshot_id", snapshot_id},
          {"suite", run.index.suite_name.empty() ? std::string("unnamed") : run.index.suite_name},
          {"git", {{"sha", str(git, "sha")}, {"ref", str(git, "ref")}, {"repository", str(git, "repository")}}},
          {"workflow", {{"tool", "jitbench"},
                        {"jitbench_version", run.index.jitbench_version},
                        {"jitbench_describe", str(git, "describe")},
                        {"command", joined(run.index.command)},
                        {"machine", machine_key},
                        {"environment_digest", environment_digest},
                        {"started_at", run.index.started_at},
                        {"finished_at", run.index.finished_at}}},
          {"artifacts", files}};
}
}  // namespace jitbench
