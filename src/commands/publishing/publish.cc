// publish: the checks on the run and the site, then the snapshot, the
// registry entry and the site's page, in that order.
#include <fmt/format.h>

#include "commands/common/common.h"
#include "commands/publishing/publish.h"
#include "commands/publishing/site.h"
#include "commands/publishing/snapshot.h"
#include "export/json/json_util.h"
#include "export/json/publish_json.h"
#include "export/json/schema.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/say.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
// A run made with the test-only switch is never published: the run's own
// record of it, or any worker that says it ran a GPU backend on the CPU.
void refuse_test_runs(const LoadedRun& run, const std::string& dir) {
  std::string which = run.environment.test_gpu_on_cpu ? "its environment.json" : "";
  for (const auto& c : run.cases)
    for (const auto* runs : {&c.cold, &c.warm})
      for (const auto& r : *runs)
        if (which.empty() && !r.worker.device_test_only.empty()) which = "case " + c.c.id;
  if (!which.empty())
    throw UserError(fmt::format("'{}' was measured with the test-only switch {}=1 (GPU backends ran on the CPU; "
                                "{} says so): such a run is never published; measure again without it", dir,
                                kTestGpuOnCpu, which));
}
}  // namespace

int publish(const PublishOptions& o) {
  require_outside_inputs(o.site, "--to", {{"RUN", o.run}});
  require_valid_run(o.run, "");
  auto loaded = read_run(o.run);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(*e);
  const LoadedRun run = std::get<LoadedRun>(std::move(loaded));
  if (!run.index.complete)
    throw UserError(fmt::format("'{}' is an incomplete run: finish it (`jitbench run --resume {}`) before publishing",
                                o.run, o.run));
  refuse_test_runs(run, o.run);
  const auto signature = signature_of(o, o.run);
  const fs::path site = o.site;
  const auto lock = open_site(site);
  auto registry = registry_of(site);
  const auto index_sha = sha256_file(fs::path(o.run) / kIndexFile);
  for (const auto& e : registry)
    if (e.index_sha256 == index_sha) {  // a run is published once; its site's pages may be redrawn
      regenerate_site(o, site, registry, utc_now());
      say(stdout, "{}: '{}' is already published as snapshot {} (a run is published once{}): the site's pages were "
          "redrawn\n{}\n", o.site, o.run, e.id,
          !o.id.empty() && o.id != e.id ? fmt::format("; --id {} is not taken", o.id) : "",
          (site / "index.html").string());
      return 0;
    }
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
  std::vector<RegistryEntry> entries = registry;  // each re-written as it was read
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
