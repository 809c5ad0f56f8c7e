// The environments a run measures in: chosen (--env, the suite's), built or
// found in the cache, held, probed and recorded.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "commands/run/run.h"
#include "env/env_cache.h"
#include "env/environments.h"
#include "env/host.h"
#include "env/probe.h"
#include "export/json/environment_json.h"
#include "export/json/json_util.h"
#include "run/worker_env.h"
#include "util/clock.h"
#include "util/interrupt.h"
#include "util/json_get.h"
#include "util/say.h"
#include "util/ticker.h"

namespace jitbench {
namespace {
// Every environment of the plan built (or found in the cache) and its
// interpreter probed: environments/env-<name>.json, the index's
// "environments" (how each was built), the summary's Environments section.
// One that cannot be built is recorded as such; its cases warn, the others run.
// A built environment is held by this run until it exits (its lock shared:
// `jitbench envs rm` and `prune` leave it alone) and this run is added to its uses.
// One removed between its build and the hold (envs rm or prune in that gap) is built once more.
EnvironmentBuild build_and_hold(ProcessLauncher& launcher, const EnvironmentSpec& spec, const EnvironmentRequest& req,
                                const OutDir& out, bool quiet) {
  for (int attempt = 0;; ++attempt) {
    auto b = [&] {
      const Ticker ticker(fmt::format("environment {}: building or checking (uv; log {})", spec.name,
                                      req.log_path.string()), quiet);
      return build_environment(launcher, spec, req);
    }();
    const auto hash = string_or(b.record, "hash", "");
    if (!b.ok || hash.empty()) return b;
    const auto why = hold_environment(req.cache_root, hash, spec.name,
                                      std::filesystem::absolute(out.root()).lexically_normal().string());
    if (why.empty()) return b;
    std::error_code ec;
    if (attempt == 0 && !interrupted() && !std::filesystem::exists(req.cache_root / hash / kEnvRecord, ec)) continue;
    b.ok = false;
    b.reason = "environment_unavailable: " + why;
    return b;
  }
}
}  // namespace

// --env and --env-var over the suite's [[environments]]: the command line's
// environments replace the suite's; variables apply to whichever are used.
std::vector<EnvironmentSpec> selected_environments(const Suite& suite, const RunOptions& o) {
  std::vector<EnvironmentSpec> envs;
  for (const auto& text : o.envs) {
    auto r = parse_environment_spec(text);
    if (auto* e = std::get_if<std::string>(&r)) throw UserError(*e);
    envs.push_back(std::get<EnvironmentSpec>(r));
  }
  if (envs.empty()) envs = suite.environments;
  for (const auto& v : o.env_vars)
    if (auto err = apply_environment_variable(envs, v); !err.empty()) throw UserError(err);
  if (auto dup = duplicate_environment(envs); !dup.empty())
    throw UserError(fmt::format("two environments are named '{}': name them (--env NAME:REQ;...)", dup));
  if ((!o.find_links.empty() || o.no_index) && envs.empty())
    throw UserError("--find-links and --no-index are for building environments: give --env too");
  return envs;
}

EnvironmentRequest environment_request(const RunOptions& o, const std::filesystem::path& log_root) {
  const auto root = environment_cache_root();
  if (auto* why = std::get_if<std::string>(&root)) throw UserError(*why);
  std::vector<std::string> find_links;
  for (const auto& f : o.find_links) find_links.push_back(std::filesystem::absolute(f).lexically_normal().string());
  return {resolve_python(""), resolve_worker_dir(), std::get<std::filesystem::path>(root), find_links, o.no_index, {},
          log_root};
}

void prepare_environments(const PlannedRun& p, const RunOptions& o, WorkerSetup& setup, RunHeader& h,
                          const OutDir& out, ProcessLauncher& launcher) {
  if (p.environments.empty()) return;
  EnvironmentRequest req = environment_request(o, out.root());
  std::vector<RecordedEnvironment> listed;
  // Only the environments a planned case (of this shard) runs in.
  std::vector<EnvironmentSpec> used;
  for (const auto& e : p.environments)
    if (std::any_of(p.cases.begin(), p.cases.end(), [&](const Case& c) { return c.env == e.name; })) used.push_back(e);
  for (std::size_t i = 0; i < used.size() && !interrupted(); ++i) {
    const auto& spec = used[i];
    if (!o.quiet)
      say(stderr, "jitbench: environment {} ({} of {}): {}\n", spec.name, i + 1, used.size(),
          fmt::join(spec.requirements, " "));
    req.log_path = out.root() / "logs" / "environments" / (spec.name + ".log");
    auto b = build_and_hold(launcher, spec, req, out, o.quiet);
    if (!b.ok && interrupted())  // a signal, not the environment: said so, and its cases are left unmeasured
      b.reason = fmt::format("environment_unavailable: interrupted (signal {}) while it was built", interrupt_signal());
    EnvironmentRun run{b.ok, b.reason, b.python, spec.variables, fmt::format("environments/env-{}.json", spec.name)};
    if (run.ok) {
      ProbeRequest pr{b.python, resolve_worker_dir(), out.root() / "logs" / "environments" / (spec.name + "-probe.log")};
      pr.log_root = out.root();
      auto probe = probe_worker(launcher, pr);
      if (auto* e = std::get_if<std::string>(&probe)) {
        run = {false, "environment_unavailable: " + *e, "", spec.variables, run.file};
      } else {
        auto vars = compiler_env();
        for (const auto& [k, v] : spec.variables) vars[k] = v;
        WorkerSetup with = setup;  // this environment's workers: its variables set
        with.environments[spec.name] = run;
        const HostFacts host = read_host_facts(manifest_read(with, spec.name));
        auto manifest = environment_json(host, std::get<nlohmann::json>(probe), vars, o.deterministic ? "" : utc_now());
        set_affinity(manifest, o.affinity, host);
        complete_environment_manifest(manifest, h.info.environment.ceilings(), b.record);
        out.write_text(run.file, json_text(manifest));
        h.info.environments.emplace_back(run.file, parse_environment(manifest));
      }
    }
    if (!o.quiet && !run.ok) say(stderr, "jitbench: environment {}: {}\n", spec.name, run.reason);
    listed.push_back({spec.name, spec.requirements, spec.python, spec.variables,
                      run.ok ? std::optional<std::string>(run.file) : std::nullopt, run.ok, run.reason, b.record});
    setup.environments[spec.name] = run;
  }
  h.info.pinned_environments = true;
  h.sections.environments = std::move(listed);
}

// A signal while the environments were built: no case is measured, so that
// --resume builds them again and measures every case left (none is recorded
// as an environment's failure); a resumed run keeps the cases it had (`kept`,
// in the plan's order).
std::optional<int> stopped_preparing(const OutDir& out, const RunHeader& h, const std::vector<Case>& plan,
                                     const std::map<std::string, CaseResult>& kept) {
  if (!interrupted()) return std::nullopt;
  std::vector<CaseResult> recorded;
  for (const auto& c : plan)
    if (auto it = kept.find(c.id); it != kept.end()) recorded.push_back(it->second);
  write_stop_index(out, h, recorded, Stopped{"interrupted", fmt::format("signal {}, while building the environments",
                                                                        interrupt_signal())});
  say(stderr, "jitbench: interrupted while building the environments; no case was measured. `jitbench run --resume "
              "{}` builds them again and measures every case left\n", out.root().string());
  return 128 + interrupt_signal();
}

}  // namespace jitbench
