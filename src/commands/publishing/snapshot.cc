// A snapshot: its id, its signature check, its files, its report and index.
#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "artifacts/out_dir.h"
#include "commands/common/common.h"
#include "commands/publishing/snapshot.h"
#include "commands/common/signature.h"
#include "export/json/json_util.h"
#include "export/json/publish_json.h"
#include "export/json/schema.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/say.h"
#include "util/ticker.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

std::string snapshot_id(const PublishOptions& o, const LoadedRun& run, const std::string& index_sha) {
  // One rule for every id, given or computed: it names a directory of the site.
  static const std::regex ok("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  if (!o.id.empty()) {
    if (!std::regex_match(o.id, ok))
      throw UserError(fmt::format("--id '{}': use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                                  "or digit", o.id));
    return o.id;
  }
  std::string when = run.index.started_at.empty() ? std::string("deterministic") : run.index.started_at;
  std::erase_if(when, [](char c) { return c == '-' || c == ':'; });
  const std::string id = when + "-" + index_sha.substr(0, 12);
  if (!std::regex_match(id, ok))
    throw UserError(fmt::format("the run's started_at '{}' makes no valid snapshot id ('{}'; ids are 1 to 64 letters, "
                                "digits, '.', '_' or '-'): give one with --id", run.index.started_at, id));
  return id;
}

std::optional<SnapshotSignature> signature_of(const PublishOptions& o, const fs::path& run) {
  if (!fs::is_regular_file(run / kIndexSignatureFile)) return std::nullopt;
  const auto check = o.allowed_signers.empty()
                         ? ssh_check_key(run / kIndexFile, run / kIndexSignatureFile)
                         : ssh_verify(run / kIndexFile, run / kIndexSignatureFile, o.allowed_signers);
  if (!check.ok)
    throw UserError(fmt::format("'{}': its {} does not verify ({}): publish it unsigned or sign it again",
                                run.string(), kIndexSignatureFile, check.message));
  return SnapshotSignature{std::string("run/") + kIndexSignatureFile, check.key,
                           check.principal.empty() ? std::nullopt : std::optional<std::string>(check.principal)};
}
namespace {
// Every file the run's index lists, the index and its signatures, into
// site/dest (through the door: no link below the site is followed); returns
// what was copied, as the seed's snapshot index lists it ("run/...").
std::vector<FileEntry> copy_run(const LoadedRun& run, const fs::path& site, const fs::path& dest) {
  std::vector<std::string> paths;
  for (const auto& f : run.index.files) paths.push_back(f.path);
  for (const char* extra : {kIndexFile, kIndexSignatureFile, kReplicationSignatureFile})
    if (fs::is_regular_file(run.dir / extra)) paths.push_back(extra);
  std::vector<FileEntry> copied;
  for (const auto& p : paths) {
    const auto text = read_file(run.dir / p);
    write_file_in(site, dest / "run" / p, text);
    copied.push_back({"run/" + p, sha256_hex(text), text.size()});
  }
  return copied;
}

}  // namespace

Published write_snapshot(const PublishOptions& o, const LoadedRun& run, SnapshotFacts& f, const fs::path& site) {
  // Built beside its place and moved in whole, every step through the door
  // (util/fs.h): a link planted at snapshots/ (or below) is refused, exit 13.
  const fs::path tmp_rel = fs::path("snapshots") / (".tmp-" + f.id), tmp = site / tmp_rel;
  remove_in(site, tmp_rel);  // a publisher killed earlier: its half-built copy (the site's lock is ours)
  make_dir_in(site, tmp_rel);
  auto copied = copy_run(run, site, tmp_rel);
  Published p{f.id, f.path, false};
  try {
    const Ticker ticker("drawing the snapshot's report", false);
    write_report((tmp / "run").string(), resolve_python(o.python));
    p.has_report = true;
  } catch (const UserError& e) {
    say(stderr, "jitbench: note: the snapshot has no report ({}); the site links its summary.md\n", e.what());
  }
  // The report is drawn here, not by the run: the snapshot index lists it, so that `verify` covers it too.
  std::vector<FileEntry> report;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(tmp / "run" / "report", ec))
    if (e.is_regular_file() && !e.is_symlink()) {
      const auto rel = e.path().lexically_relative(site);
      const auto text = read_file_in(site, rel);
      report.push_back({e.path().lexically_relative(tmp).string(), sha256_hex(text), text.size()});
    }
  std::sort(report.begin(), report.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  copied.insert(copied.end(), report.begin(), report.end());
  const json index = seed_snapshot_index(f.id, f.published_at, run, copied, f.machine_key, f.environment_digest);
  for (const auto& e : validate_against(index, kSeedSnapshotIndexSchema))
    throw std::runtime_error("the seed snapshot index does not match its schema: " + e);
  const auto text = json_text(index);
  write_file_in(site, tmp_rel / "snapshot_index.json", text);
  f.snapshot_index_sha256 = sha256_hex(text);
  rename_in(site, tmp_rel, f.path);
  return p;
}

}  // namespace jitbench
