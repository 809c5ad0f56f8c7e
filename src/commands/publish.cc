// `jitbench publish RUN --to SITE [--id ID]`: a complete, valid run copied
// into SITE/snapshots/ID/run (never overwriting), its seed-format snapshot
// index beside it, an entry appended to SITE/registry.json, and SITE/index.html
// regenerated from every snapshot. One publisher at a time (a lock on the
// site); a run already published is refused.
#include <fmt/format.h>

#include <regex>

#include "artifacts/out_dir.h"
#include "commands/commands.h"
#include "commands/signature.h"
#include "compare/history.h"
#include "export/json_util.h"
#include "export/publish_json.h"
#include "export/schema.h"
#include "export/site_html.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/say.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char* kSiteMarker = ".jitbench-site";

// The site, created (or found empty) and marked, or one jitbench made; locked.
OutDirLock open_site(const fs::path& site) {
  std::error_code ec;
  if (fs::exists(site, ec) && !fs::is_directory(site, ec))
    throw UserError(fmt::format("--to '{}' is not a directory: give a new directory or a jitbench site", site.string()));
  fs::create_directories(site, ec);
  if (ec) throw UserError(fmt::format("cannot create the site '{}': {}", site.string(), ec.message()));
  bool empty = true;
  for (const auto& e : fs::directory_iterator(site, ec))
    if (e.path().filename() != kLockFile) empty = false;
  if (!empty && !fs::is_regular_file(site / kSiteMarker))
    throw UserError(fmt::format("--to '{}' holds files and is not a jitbench site (no {}): publish into a new or "
                                "empty directory, or a site `jitbench publish` made", site.string(), kSiteMarker));
  auto lock = OutDirLock::acquire(site);
  if (auto* e = std::get_if<std::string>(&lock)) throw UserError(*e);
  if (empty) write_file_in(site, kSiteMarker, "a jitbench publish site: registry.json lists its snapshots\n");
  return std::get<OutDirLock>(std::move(lock));
}

std::vector<RegistryEntry> registry_of(const fs::path& site) {
  if (!fs::exists(site / "registry.json")) return {};
  auto r = read_registry(site / "registry.json");
  if (auto* e = std::get_if<std::string>(&r)) throw UserError("the site's registry cannot be read: " + *e);
  return std::get<std::vector<RegistryEntry>>(std::move(r));
}

// --id, or <run start>-<the index's sha256 prefix>: content-addressed.
std::string snapshot_id(const PublishOptions& o, const LoadedRun& run, const std::string& index_sha) {
  if (!o.id.empty()) {
    static const std::regex ok("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    if (!std::regex_match(o.id, ok))
      throw UserError(fmt::format("--id '{}': use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                                  "or digit", o.id));
    return o.id;
  }
  std::string when = run.index.started_at.empty() ? std::string("deterministic") : run.index.started_at;
  std::erase_if(when, [](char c) { return c == '-' || c == ':'; });
  return when + "-" + index_sha.substr(0, 12);
}

// Who signed the run (null when unsigned); a signature that does not verify is refused.
json signature_of(const PublishOptions& o, const fs::path& run) {
  if (!fs::is_regular_file(run / kIndexSignatureFile)) return nullptr;
  const auto check = o.allowed_signers.empty()
                         ? ssh_check_key(run / kIndexFile, run / kIndexSignatureFile)
                         : ssh_verify(run / kIndexFile, run / kIndexSignatureFile, o.allowed_signers);
  if (!check.ok)
    throw UserError(fmt::format("'{}': its {} does not verify ({}): publish it unsigned or sign it again",
                                run.string(), kIndexSignatureFile, check.message));
  return {{"file", std::string("run/") + kIndexSignatureFile}, {"key", check.key},
          {"principal", text_or_null(check.principal)}};
}
}  // namespace

namespace {
// Every file the run's index lists, the index and its signatures, into dest;
// returns what was copied, as the seed's snapshot index lists it ("run/...").
std::vector<FileEntry> copy_run(const LoadedRun& run, const fs::path& dest) {
  std::vector<std::string> paths;
  for (const auto& f : run.index.files) paths.push_back(f.path);
  for (const char* extra : {kIndexFile, kIndexSignatureFile, kReplicationSignatureFile})
    if (fs::is_regular_file(run.dir / extra)) paths.push_back(extra);
  std::vector<FileEntry> copied;
  for (const auto& p : paths) {
    const auto text = read_file(run.dir / p);
    write_file_in(dest, fs::path("run") / p, text);
    copied.push_back({"run/" + p, sha256_hex(text), text.size()});
  }
  return copied;
}

struct Published {
  std::string id, dir;
  bool has_report = false;
};

// The snapshot's directory, complete, under its id: built beside and renamed in one step.
Published write_snapshot(const PublishOptions& o, const LoadedRun& run, SnapshotFacts& f, const fs::path& site) {
  const fs::path final_dir = site / f.path;
  const fs::path tmp = site / "snapshots" / (".tmp-" + f.id);
  std::error_code ec;
  fs::remove_all(tmp, ec);  // a publisher killed earlier: its half-built copy (the site's lock is ours)
  fs::create_directories(tmp, ec);
  if (ec) throw WriteError(fmt::format("cannot create {}: {}", tmp.string(), ec.message()), ec.value());
  const auto copied = copy_run(run, tmp);
  Published p{f.id, f.path, false};
  try {
    write_report((tmp / "run").string(), resolve_python(o.python));
    p.has_report = true;
  } catch (const UserError& e) {
    say(stderr, "jitbench: note: the snapshot has no report ({}); the site links its summary.md\n", e.what());
  }
  const json index = seed_snapshot_index(f.id, f.published_at, run, copied, f.machine_key, f.environment_digest);
  for (const auto& e : validate_against(index, kSeedSnapshotIndexSchema))
    throw std::runtime_error("the seed snapshot index does not match its schema: " + e);
  const auto text = json_text(index);
  write_file_in(tmp, "snapshot_index.json", text);
  f.snapshot_index_sha256 = sha256_hex(text);
  fs::rename(tmp, final_dir, ec);
  if (ec) throw WriteError(fmt::format("cannot move the snapshot into {}: {}", final_dir.string(), ec.message()), ec.value());
  return p;
}

// SITE/index.html (and its figures) from every snapshot in the registry.
void regenerate_site(const PublishOptions& o, const fs::path& site, const std::vector<json>& entries,
                     const std::string& now) {
  std::vector<LoadedRun> runs;
  runs.reserve(entries.size());
  SitePage page;
  page.gate_pct = o.gate_pct;
  page.alpha = o.alpha;
  page.generated_at = now;
  std::vector<compare::SnapshotRun> snaps;
  for (const auto& e : entries) {
    const fs::path dir = site / e.at("path").get<std::string>() / "run";
    auto loaded = read_run(dir);
    if (auto* err = std::get_if<std::string>(&loaded)) throw UserError("a published snapshot cannot be read: " + *err);
    runs.push_back(std::get<LoadedRun>(std::move(loaded)));
    page.entries.push_back(e);
    page.has_report.push_back(fs::is_regular_file(dir / "report" / "report.html"));
  }
  for (std::size_t k = 0; k < runs.size(); ++k)
    snaps.push_back({entries[k].at("id").get<std::string>(), entries[k].at("published_at").get<std::string>(),
                     entries[k].at("machine").at("key").get<std::string>(),
                     entries[k].at("environment_digest").get<std::string>(), &runs[k].cases});
  page.history = compare::build_history(snaps, o.gate_pct, o.alpha);
  try {
    for (auto& [key, svg] : draw_figures(resolve_python(o.python), site_figure_data(page), site, site / "site.log"))
      for (std::size_t k = 0; k < page.history.case_ids.size(); ++k)
        if (key == "history-" + std::to_string(k)) page.svgs[page.history.case_ids[k]] = std::move(svg);
  } catch (const UserError& e) {
    say(stderr, "jitbench: note: the site's figures were not drawn ({}); its tables hold every point\n", e.what());
  }
  write_file_in(site, "index.html", site_html(page));
}
}  // namespace

int cmd_publish(const PublishOptions& o) {
  require_valid_run(o.run, "");
  auto loaded = read_run(o.run);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(*e);
  const LoadedRun run = std::get<LoadedRun>(std::move(loaded));
  if (!run.index.complete)
    throw UserError(fmt::format("'{}' is an incomplete run: finish it (`jitbench run --resume {}`) before publishing",
                                o.run, o.run));
  if (run.environment.test_gpu_on_cpu)
    throw UserError(fmt::format("'{}' was measured with the test-only switch {}=1 (GPU backends ran on the CPU): "
                                "such a run is never published; measure again without it", o.run, kTestGpuOnCpu));
  const json signature = signature_of(o, o.run);
  const fs::path site = o.site;
  const auto lock = open_site(site);
  auto registry = registry_of(site);
  const auto index_sha = sha256_file(fs::path(o.run) / kIndexFile);
  for (const auto& e : registry)
    if (e.index_sha256 == index_sha)
      throw UserError(fmt::format("'{}' is already published in '{}' as snapshot {}: a run is published once",
                                  o.run, o.site, e.id));
  SnapshotFacts f;
  f.id = snapshot_id(o, run, index_sha);
  f.path = "snapshots/" + f.id;
  if (fs::exists(site / f.path) || std::any_of(registry.begin(), registry.end(), [&](auto& e) { return e.id == f.id; }))
    throw UserError(fmt::format("snapshot id '{}' is taken in '{}': choose another --id", f.id, o.site));
  f.published_at = utc_now();
  f.run = &run;
  f.machine_key = machine_key(run.environment, machine_label(run));
  f.environment_digest = environment_digest(run);
  f.index_sha256 = index_sha;
  f.signature = signature;
  const auto published = write_snapshot(o, run, f, site);
  std::vector<json> entries;
  for (const auto& e : registry) entries.push_back(e.raw);
  entries.push_back(registry_entry(f));
  const json doc = registry_json(entries, f.published_at);
  for (const auto& e : validate_against(doc, kRegistrySchema))
    throw std::runtime_error("the registry does not match its schema: " + e);
  write_file_in(site, "registry.json", json_text(doc));
  regenerate_site(o, site, entries, f.published_at);
  say(stdout, "{}: snapshot {} ({} of the site){}\n{}\n", o.site, published.id, entries.size(),
      published.has_report ? ", with its report" : "", (site / "index.html").string());
  return 0;
}

}  // namespace jitbench
