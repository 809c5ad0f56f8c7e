// `jitbench envs list|rm|prune`: the pinned environments' cache
// (env/env_cache.h) shown, and trimmed by the user. Only what jitbench made,
// and nothing a run is using, is ever removed.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "commands/commands.h"
#include "env/env_cache.h"
#include "env/environments.h"
#include "export/json/envs_json.h"
#include "export/json/json_util.h"
#include "util/fs.h"
#include "util/say.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

// Decimal units, as --max-size GB (10^9 bytes) takes them.
std::string envs_size_text(std::uint64_t b) {
  if (b >= 1000000000ull) return fmt::format("{:.2f} GB", double(b) / 1e9);
  if (b >= 1000000ull) return fmt::format("{:.1f} MB", double(b) / 1e6);
  return fmt::format("{:.1f} kB", double(b) / 1e3);
}

// Which hashes this jitbench still computes (from the builder, with uv), in a
// temporary directory under $TMPDIR (or /tmp) for its log.
std::map<std::string, std::optional<std::string>> envs_current_hashes(const fs::path& root) {
  std::optional<PrivateDir> made;
  try {
    made.emplace("jitbench-envs");
  } catch (const WriteError& e) {
    throw UserError(fmt::format("{} (for the builder's log)", e.what()));
  }
  const PrivateDir& tmp = *made;
  PosixLauncher launcher;
  EnvironmentRequest req{resolve_python(""), resolve_worker_dir(), root, {}, false, tmp.path() / "hashes.log",
                         tmp.path(), 120};
  auto hashes = current_environment_hashes(launcher, req);
  return hashes ? std::move(*hashes) : std::map<std::string, std::optional<std::string>>{};
}

// The cache as it is now; with_hashes (list, prune): whether each hash is still the one this jitbench computes.
EnvironmentCache read_envs_cache(bool with_hashes) {
  const auto root_or = environment_cache_root();
  if (auto* why = std::get_if<std::string>(&root_or)) throw UserError(*why);
  const auto root = std::get<fs::path>(root_or);
  std::map<std::string, std::optional<std::string>> current;
  std::error_code ec;
  if (with_hashes && fs::is_directory(root, ec)) current = envs_current_hashes(root);
  return scan_environment_cache(root, current);
}

std::string envs_state(const CachedEnvironment& e) {
  std::string s = e.in_use ? "in use" : "";
  if (!e.complete) s += std::string(s.empty() ? "" : ", ") + "half-built";
  if (e.current == false) s += std::string(s.empty() ? "" : ", ") + "stale hash";
  return s.empty() ? "" : " [" + s + "]";
}

void print_envs(const EnvironmentCache& c) {
  if (!c.exists) {
    say(stdout, "No environment cache at {} (jitbench makes it when a run first uses --env).\n", c.root.string());
    return;
  }
  say(stdout, "Environment cache {}{}: {} environment{}, {} (apparent sizes, each hard-linked file counted once)\n\n",
      c.root.string(), c.marked ? "" : " (not made by jitbench: nothing in it is removed)", c.environments.size(),
      c.environments.size() == 1 ? "" : "s", envs_size_text(c.total_bytes));
  for (const auto& e : c.environments) {
    say(stdout, "{}  {}{}\n", e.hash, e.names.empty() ? "(unnamed)" : fmt::format("{}", fmt::join(e.names, ", ")),
        envs_state(e));
    if (!e.requirements.empty()) say(stdout, "    requirements  {}\n", fmt::join(e.requirements, " "));
    say(stdout, "    held to       {}\n", e.held.empty() ? "nothing held" : e.held);
    say(stdout, "    size          {} ({} freed by rm; the rest is linked from elsewhere, e.g. uv's cache)\n",
        envs_size_text(e.bytes), envs_size_text(e.freed_bytes));
    say(stdout, "    built         {}\n", e.built.empty() ? "-" : e.built);
    say(stdout, "    last used     {}\n", e.last_used.empty() ? "no run recorded" : e.last_used);
    say(stdout, "    runs          {}{}\n", e.runs.size(),
        e.runs.empty() ? "" : fmt::format(" (last: {})", e.runs.back()));
  }
  for (const auto& f : c.foreign) say(stdout, "{}  not made by jitbench: left alone\n", f);
}

// A root the builder would refuse is one nothing is removed from (a link: exit 13).
void require_trusted_root(const EnvironmentCache& c) {
  if (c.untrusted.empty()) return;
  const std::string line = c.untrusted + ": nothing in it is removed";
  if (c.root_is_link) throw WriteError(line, ELOOP);
  throw UserError(line);
}

int envs_remove(const EnvironmentCache& c, const std::string& target) {
  require_trusted_root(c);
  const auto pick = pick_environment(c, target);
  if (!pick.env) throw UserError(pick.error);
  if (auto why = remove_cached_environment(c, *pick.env); !why.empty()) throw UserError(why);
  say(stdout, "removed {} ({}): {} freed\n", pick.env->hash, pick.env->name.empty() ? "unnamed" : pick.env->name,
      envs_size_text(pick.env->freed_bytes));
  return 0;
}

int envs_prune(const EnvironmentCache& c, const EnvsOptions& o) {
  require_trusted_root(c);
  if (c.exists && !c.marked)
    throw UserError(fmt::format("{} has no {}: jitbench did not make it and removes nothing in it", c.root.string(),
                                kEnvRootMark));
  PruneRule rule{o.older_than_days, std::nullopt, o.stale};
  if (o.max_size_gb) rule.max_bytes = static_cast<std::uint64_t>(*o.max_size_gb * 1e9);
  const auto chosen = choose_prune(c, rule, static_cast<long long>(std::time(nullptr)));
  std::uint64_t freed = 0;
  int failed = 0;
  for (auto i : chosen) {
    const auto& e = c.environments[i];
    const auto why = o.dry_run ? std::string() : remove_cached_environment(c, e);
    if (!why.empty()) {
      ++failed;
      say(stderr, "jitbench: envs prune: {}\n", why);
      continue;
    }
    freed += e.freed_bytes;
    say(stdout, "{} {} ({}; last used {}){}\n", o.dry_run ? "would remove" : "removed", e.hash,
        e.name.empty() ? "unnamed" : e.name, e.last_used.empty() ? "never recorded" : e.last_used, envs_state(e));
  }
  int in_use = 0;
  for (const auto& e : c.environments) in_use += e.in_use ? 1 : 0;
  say(stdout, "{} environment{} {}, {} freed{}\n", chosen.size() - failed, chosen.size() - failed == 1 ? "" : "s",
      o.dry_run ? "to remove" : "removed", envs_size_text(freed),
      in_use ? fmt::format("; {} in use left alone", in_use) : "");
  if (failed)  // each said why on stderr; exit 2, as `envs rm` of one it cannot remove
    say(stderr, "jitbench: envs prune: {} of {} could not be removed (above)\n", failed, chosen.size());
  return failed ? 2 : 0;
}
}  // namespace

int cmd_envs(const EnvsOptions& o) {
  const auto cache = read_envs_cache(o.action != EnvsAction::Remove);  // rm needs no hashes
  switch (o.action) {
    case EnvsAction::List:
      if (o.json) say(stdout, "{}", json_text(envs_json(cache)));
      else print_envs(cache);
      return 0;
    case EnvsAction::Remove:
      return envs_remove(cache, o.target);
    case EnvsAction::Prune:
      return envs_prune(cache, o);
  }
  return 0;
}

}  // namespace jitbench
