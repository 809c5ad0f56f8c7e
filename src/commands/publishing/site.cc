// The publish site: its marker and lock, its registry, its pages (index, one per case, assets).
#include <fmt/format.h>

#include "artifacts/out_dir.h"
#include "commands/common/common.h"
#include "commands/publishing/site.h"
#include "compare/history.h"
#include "export/json/json_util.h"
#include "export/json/publish_json.h"
#include "export/json/schema.h"
#include "export/docs/site_json.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/say.h"
#include "util/ticker.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

OutDirLock open_site(const fs::path& site) {
  std::error_code ec;
  if (fs::exists(site, ec) && !fs::is_directory(site, ec))
    throw UserError(fmt::format("--to '{}' is not a directory: give a new directory or a jitbench site", site.string()));
  make_root_dir(site);
  bool empty = true;
  for (const auto& e : fs::directory_iterator(site, ec))
    if (e.path().filename() != kLockFile) empty = false;
  if (!empty && !fs::is_regular_file(site / kSiteMarker))
    throw UserError(fmt::format("--to '{}' holds files and is not a jitbench site (no {}): publish into a new or "
                                "empty directory, or a site `jitbench publish` made", site.string(), kSiteMarker));
  auto lock = OutDirLock::acquire(site, {"site", "publish to another site (--to)"});
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

// SITE/index.html, SITE/cases/*.html and SITE/assets/ from every snapshot in the registry.
void regenerate_site(const PublishOptions& o, const fs::path& site, const std::vector<RegistryEntry>& entries,
                     const std::string& now) {
  std::vector<LoadedRun> runs;
  runs.reserve(entries.size());
  SitePage page;
  page.gate_pct = o.gate_pct;
  page.alpha = o.alpha;
  page.generated_at = now;
  std::vector<compare::SnapshotRun> snaps;
  for (const auto& e : entries) {
    const fs::path dir = site / e.path / "run";
    auto loaded = read_run(dir);
    if (auto* err = std::get_if<std::string>(&loaded)) throw UserError("a published snapshot cannot be read: " + *err);
    runs.push_back(std::get<LoadedRun>(std::move(loaded)));
    page.entries.push_back(e);
    page.has_report.push_back(fs::is_regular_file(dir / "report" / "report.html"));
  }
  for (std::size_t k = 0; k < runs.size(); ++k)
    snaps.push_back({entries[k].id, entries[k].published_at, entries[k].machine, entries[k].environment_digest,
                     &runs[k].cases});
  page.history = compare::build_history(snaps, o.gate_pct, o.alpha);
  std::map<std::string, std::string> files;
  try {
    const Ticker ticker(fmt::format("drawing the site's pages ({} cases)", page.history.case_ids.size()), false);
    files = draw_figures(resolve_python(o.python), site_json(page), site, site / "site.log");
  } catch (const UserError& e) {
    throw UserError(fmt::format("snapshot published (registry.json lists it), but the site's pages were not "
                                "written: {}; then publish the same run again to draw them", e.what()));
  }
  const std::string prefix = "site/";
  for (const auto& [name, text] : files)
    if (name.starts_with(prefix)) write_file_in(site, name.substr(prefix.size()), text);
}
}  // namespace jitbench
