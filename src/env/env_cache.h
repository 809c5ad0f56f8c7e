#pragma once
// The environment cache in the user's hands (`jitbench envs`): what is in it,
// how large (hard links counted once), when each environment was last used and
// by which runs; removing one, or pruning the least recently used. Nothing is
// removed that jitbench did not make (the cache root's `.jitbench-env-cache`,
// an environment's `.jitbench-env-made` or record) or that is in use (its
// per-hash lock, held shared by every run that uses it). docs/environments.md.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jitbench {

// One file of an environment, as the file system identifies it: a file
// hard-linked into several environments (uv links from its own cache) is one.
struct FileId {
  std::uint64_t dev = 0, ino = 0, bytes = 0, links = 1;  // links: st_nlink, every link anywhere
  std::uint64_t inside = 1;                               // the links to it inside the environment
  bool operator<(const FileId& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};

struct CachedEnvironment {
  std::string hash;  // its directory's name
  std::filesystem::path dir;
  bool complete = false;  // its record (.jitbench-env.json) is there and readable
  std::string name;       // as the run that built it named it
  std::vector<std::string> names;  // every name runs used it under (the record's first)
  std::vector<std::string> requirements;
  std::string held;            // exclude_newer, "" when nothing was held
  std::string built;           // UTC time its record was written ("" half-built)
  std::string python_version;
  std::uint64_t bytes = 0;        // its files, each counted once
  std::uint64_t freed_bytes = 0;  // of those, the files no other directory links to (what rm frees)
  std::string last_used;          // UTC time of the last run that used it ("" never recorded)
  std::vector<std::string> runs;  // the out dirs of the runs that used it, oldest first, no repeats
  std::optional<bool> current;    // the hash this jitbench computes for its record is its own (unknown: none)
  bool in_use = false;            // its lock is held (a run uses it, or a builder builds it)
  std::vector<FileId> files;      // not exported
};

struct EnvironmentCache {
  std::filesystem::path root;
  bool exists = false;
  bool marked = false;  // holds .jitbench-env-cache: jitbench made it
  // Why the root is not trusted (a link, another user's, writable by every
  // user: the builder's rule), "" when it is: nothing in it is then removed.
  std::string untrusted;
  bool root_is_link = false;
  std::vector<CachedEnvironment> environments;  // sorted by last use, most recent first
  std::vector<std::string> foreign;             // entries of the root jitbench did not make
  std::uint64_t total_bytes = 0;                // every file once, across the environments
};

inline constexpr const char* kEnvRootMark = ".jitbench-env-cache";
inline constexpr const char* kEnvRecord = ".jitbench-env.json";
inline constexpr const char* kEnvMadeMark = ".jitbench-env-made";
inline constexpr const char* kEnvUses = ".jitbench-env-uses";

// What is in the cache. `current_hashes`: for each directory, the hash this
// jitbench computes from its record; null or absent: unknown (not stale).
EnvironmentCache scan_environment_cache(const std::filesystem::path& root,
                                        const std::map<std::string, std::optional<std::string>>& current_hashes);

// The environment a user named: a hash, a unique hash prefix (4+ characters)
// or a name a run used it under. A UserError-like message when none or several.
struct EnvironmentPick {
  const CachedEnvironment* env = nullptr;
  std::string error;  // when env is null
};
EnvironmentPick pick_environment(const EnvironmentCache& cache, const std::string& name_or_hash);

// Removes one environment: "" when done, else why not (not jitbench's, in use, ...).
std::string remove_cached_environment(const EnvironmentCache& cache, const CachedEnvironment& env);

// The least recently used first (an environment never recorded as used counts
// from when it was built): those last used before `now - older_than_days`,
// then as many as it takes for the rest to fit in `max_bytes` (files counted
// once across the environments), and always the half-built ones; with
// `stale`, also those whose hash this jitbench computes differently
// (current == false; unknown is kept). In-use ones are never chosen.
// Indices into cache.environments.
struct PruneRule {
  std::optional<double> older_than_days;
  std::optional<std::uint64_t> max_bytes;
  bool stale = false;
};
std::vector<std::size_t> choose_prune(const EnvironmentCache& cache, const PruneRule& rule, long long now_s);

// Seconds since the epoch of a UTC time as jitbench writes them
// (2026-01-31T12:00:00Z, fractions allowed); none when it is not one.
std::optional<long long> parse_utc_seconds(const std::string& iso);

// A run holds the environment it measures in (hash under root) until it
// exits: its lock taken shared (`envs rm` and `prune` pass it by) and the run
// appended to the environment's uses. "" when held, else why not (removed
// since it was built).
std::string hold_environment(const std::filesystem::path& root, const std::string& hash, const std::string& name,
                             const std::string& run_dir);

}  // namespace jitbench
