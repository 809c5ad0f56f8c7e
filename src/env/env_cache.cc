#include "env/env_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <set>

#include "util/clock.h"
#include "util/fs.h"
#include "util/json_get.h"
#include "util/json_parse.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
bool is_env_hash(const std::string& s) {
  return s.size() == 16 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit((unsigned char)c) &&
                                                                                !std::isupper((unsigned char)c); });
}

// Every regular file below dir, by inode (links within dir counted once).
std::vector<FileId> env_files(const fs::path& dir) {
  std::map<FileId, std::uint64_t> seen;  // with the links found inside dir
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    ++seen[FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                  static_cast<std::uint64_t>(st.st_size), static_cast<std::uint64_t>(st.st_nlink)}];
  }
  std::vector<FileId> out;
  for (const auto& [f, inside] : seen) {
    out.push_back(f);
    out.back().inside = inside;
  }
  return out;
}

std::string file_mtime_utc(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return "";
  std::tm tm{};
  ::gmtime_r(&st.st_mtime, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The uses file: one "<UTC time>\t<name>\t<out dir>" line per run.
void read_env_uses(const fs::path& dir, CachedEnvironment& e) {
  std::string text;
  try {
    text = read_file(dir / kEnvUses);
  } catch (const std::exception&) {
    return;
  }
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const auto t1 = line.find('\t'), t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) continue;
    const auto when = line.substr(0, t1), name = line.substr(t1 + 1, t2 - t1 - 1), run = line.substr(t2 + 1);
    if (!parse_utc_seconds(when)) continue;
    if (when > e.last_used) e.last_used = when;
    if (!name.empty() && std::find(e.names.begin(), e.names.end(), name) == e.names.end()) e.names.push_back(name);
    if (!run.empty() && std::find(e.runs.begin(), e.runs.end(), run) == e.runs.end()) e.runs.push_back(run);
  }
}

void read_env_record(const fs::path& dir, CachedEnvironment& e) {
  nlohmann::json rec;
  try {
    auto parsed = parse_json(read_file(dir / kEnvRecord));
    if (auto* j = std::get_if<nlohmann::json>(&parsed)) rec = std::move(*j);
  } catch (const std::exception&) {
  }
  if (!rec.is_object()) return;
  e.complete = true;
  e.name = string_or(rec, "name", "");
  if (!e.name.empty()) e.names.push_back(e.name);
  if (rec.contains("requirements") && rec["requirements"].is_array())
    for (const auto& r : rec["requirements"])
      if (r.is_string()) e.requirements.push_back(r.get<std::string>());
  e.held = string_or(rec, "exclude_newer", "");
  e.python_version = string_or(rec, "python_version", "");
  e.built = file_mtime_utc(dir / kEnvRecord);
}

// Tries the lock without waiting: true when nobody holds it (a missing lock file: nobody).
bool env_lock_free(const fs::path& lock) {
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return true;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free;
}

// The builder's rule (worker/jitbench_worker/harness/envs.py, check_owned), the same
// for what is removed: only what this user made, and nobody else may write,
// is trusted: no link, this user's, not writable by every user.
std::string untrusted_because(const fs::path& path, const char* what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";
  if (S_ISLNK(st.st_mode))
    return fmt::format("the {} {} is a symbolic link; point JITBENCH_ENV_CACHE at a directory of yours", what,
                       path.string());
  if (st.st_uid != ::getuid())
    return fmt::format("the {} {} belongs to another user (uid {}); point JITBENCH_ENV_CACHE at a directory of yours",
                       what, path.string(), st.st_uid);
  if (st.st_mode & S_IWOTH)
    return fmt::format("the {} {} is writable by every user; make it private (chmod o-w) or point JITBENCH_ENV_CACHE "
                       "elsewhere", what, path.string());
  return "";
}

bool made_by_jitbench(const fs::path& dir) {
  std::error_code ec;
  return !fs::is_symlink(dir, ec) && fs::is_directory(dir, ec) &&
         (fs::exists(dir / kEnvRecord, ec) || fs::exists(dir / kEnvMadeMark, ec));
}

// The sizes: each environment's files once, what only it links to, and the whole cache once.
void count_env_bytes(EnvironmentCache& c) {
  std::map<FileId, std::uint64_t> links_seen;  // links found across the environments
  for (const auto& e : c.environments)
    for (const auto& f : e.files) ++links_seen[f];
  c.total_bytes = 0;
  for (const auto& [f, n] : links_seen) c.total_bytes += f.bytes;
  for (auto& e : c.environments) {
    e.bytes = e.freed_bytes = 0;
    for (const auto& f : e.files) {
      e.bytes += f.bytes;
      if (f.links <= f.inside) e.freed_bytes += f.bytes;  // every link to it is inside this environment
    }
  }
}

std::string recency(const CachedEnvironment& e) { return e.last_used.empty() ? e.built : e.last_used; }
}  // namespace

std::optional<long long> parse_utc_seconds(const std::string& iso) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6 || consumed < 19)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<long long>(::timegm(&tm));
}

EnvironmentCache scan_environment_cache(const fs::path& root,
                                        const std::map<std::string, std::optional<std::string>>& current_hashes) {
  EnvironmentCache c;
  c.root = root;
  std::error_code ec;
  c.exists = fs::is_directory(root, ec);
  if (!c.exists) return c;
  c.untrusted = untrusted_because(root, "environment cache");
  c.root_is_link = fs::is_symlink(root, ec);
  c.marked = fs::exists(root / kEnvRootMark, ec);
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const auto name = entry.path().filename().string();
    if (name == kEnvRootMark || name == ".jitbench-find-links.json") continue;
    if (name.size() == 21 && name.ends_with(".lock") && is_env_hash(name.substr(0, 16))) continue;
    if (!c.marked || !is_env_hash(name) || !made_by_jitbench(entry.path())) {
      c.foreign.push_back(name);
      continue;
    }
    CachedEnvironment e;
    e.hash = name;
    e.dir = entry.path();
    read_env_record(e.dir, e);
    read_env_uses(e.dir, e);
    // A hash that could not be computed (null) is unknown, never stale: such an environment may still be reused.
    if (auto it = current_hashes.find(name); it != current_hashes.end() && it->second.has_value())
      e.current = *it->second == name;
    e.in_use = !env_lock_free(root / (name + ".lock"));
    e.files = env_files(e.dir);
    c.environments.push_back(std::move(e));
  }
  std::sort(c.foreign.begin(), c.foreign.end());
  std::sort(c.environments.begin(), c.environments.end(), [](const auto& a, const auto& b) {
    return recency(a) != recency(b) ? recency(a) > recency(b) : a.hash < b.hash;
  });
  count_env_bytes(c);
  return c;
}

EnvironmentPick pick_environment(const EnvironmentCache& c, const std::string& key) {
  std::vector<const CachedEnvironment*> found;
  for (const auto& e : c.environments)
    if (e.hash == key) return {&e, ""};
  // An entry jitbench did not make is named first: a run's name for another
  // environment (any text, from its uses file) never stands in for it.
  if (std::find(c.foreign.begin(), c.foreign.end(), key) != c.foreign.end())
    return {nullptr, fmt::format("'{}' in {} was not made by jitbench (no {} or {} in it, or the root has no {}): "
                                 "jitbench leaves it alone; remove it yourself if it is yours",
                                 key, c.root.string(), kEnvMadeMark, kEnvRecord, kEnvRootMark)};
  for (const auto& e : c.environments) {
    const bool prefix = key.size() >= 4 && e.hash.starts_with(key);
    if (prefix || std::find(e.names.begin(), e.names.end(), key) != e.names.end()) found.push_back(&e);
  }
  if (found.size() == 1) return {found[0], ""};
  if (found.empty())
    return {nullptr, fmt::format("no environment '{}' in {}; `jitbench envs list` shows their names and hashes", key,
                                 c.root.string())};
  std::string hashes;
  for (const auto* e : found) hashes += (hashes.empty() ? "" : ", ") + e->hash;
  return {nullptr, fmt::format("'{}' names {} environments ({}): give the hash of the one to remove", key,
                               found.size(), hashes)};
}

std::string remove_cached_environment(const EnvironmentCache& c, const CachedEnvironment& e) {
  if (!c.untrusted.empty()) return c.untrusted + ": nothing in it is removed";
  if (auto why = untrusted_because(e.dir, "environment"); !why.empty()) return why + ": left as it is";
  if (!c.marked)
    return fmt::format("{} has no {}: jitbench did not make it and removes nothing in it", c.root.string(),
                       kEnvRootMark);
  if (!is_env_hash(e.hash) || !made_by_jitbench(e.dir))
    return fmt::format("{} was not made by jitbench: left as it is", e.dir.string());
  struct stat st {};
  if (::lstat(e.dir.c_str(), &st) != 0 || st.st_uid != ::getuid())
    return fmt::format("{} belongs to another user: left as it is", e.dir.string());
  const auto lock = c.root / (e.hash + ".lock");
  int fd = -1;
  try {
    fd = open_shared_in(c.root, e.hash + ".lock", SharedOpen::Lock);
  } catch (const WriteError& err) {
    return fmt::format("cannot open its lock {}: {}", lock.string(), err.what());
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return fmt::format("{} is in use (a run or a builder holds {}): left as it is; try again when it ends",
                       e.hash, lock.string());
  }
  std::string failed;
  try {  // through the door: nothing below the root is followed
    remove_in(c.root, fs::path(e.hash) / kEnvRecord);  // first: a removal cut short leaves a half-built one, built again
    remove_in(c.root, e.hash);
    remove_in(c.root, e.hash + ".lock");  // a builder waiting on the old file opens the new one (envs.py, `locked`)
  } catch (const WriteError& err) {
    failed = fmt::format("could not remove all of {}: {}", e.dir.string(), err.what());
  }
  ::close(fd);
  return failed;
}

std::vector<std::size_t> choose_prune(const EnvironmentCache& c, const PruneRule& rule, long long now_s) {
  std::vector<std::size_t> order(c.environments.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return recency(c.environments[a]) < recency(c.environments[b]);  // least recently used first
  });
  std::set<std::size_t> chosen;
  for (auto i : order) {
    const auto& e = c.environments[i];
    if (e.in_use) continue;
    const auto when = parse_utc_seconds(recency(e));
    const bool old = rule.older_than_days && when && double(now_s - *when) > *rule.older_than_days * 86400.0;
    if (!e.complete || (rule.stale && e.current == false) || old) chosen.insert(i);
  }
  if (rule.max_bytes) {
    std::map<FileId, int> kept;  // the files of the environments that stay, with how many of them link each
    for (std::size_t i = 0; i < c.environments.size(); ++i)
      if (!chosen.count(i))
        for (const auto& f : c.environments[i].files) ++kept[f];
    std::uint64_t total = 0;
    for (const auto& [f, n] : kept) total += f.bytes;
    for (auto i : order) {
      if (total <= *rule.max_bytes) break;
      if (chosen.count(i) || c.environments[i].in_use) continue;
      chosen.insert(i);
      for (const auto& f : c.environments[i].files)
        if (--kept[f] == 0) total -= f.bytes;
    }
  }
  std::vector<std::size_t> out;
  for (auto i : order)
    if (chosen.count(i)) out.push_back(i);
  return out;
}

std::string hold_environment(const fs::path& root, const std::string& hash, const std::string& name,
                             const std::string& run_dir) {
  const auto lock = root / (hash + ".lock");
  int fd = -1;
  for (;;) {
    // Kept open until jitbench exits (the lock goes with it, kill -9 included); not inherited by workers.
    try {
      fd = open_shared_in(root, hash + ".lock", SharedOpen::Lock);
    } catch (const WriteError& err) {
      return fmt::format("cannot open its lock {}: {}", lock.string(), err.what());
    }
    struct stat held {}, now {};
    if (::flock(fd, LOCK_SH) != 0 || ::fstat(fd, &held) != 0) {
      ::close(fd);
      return fmt::format("cannot lock {}: {}", lock.string(), std::strerror(errno));
    }
    if (::stat(lock.c_str(), &now) == 0 && now.st_ino == held.st_ino && now.st_dev == held.st_dev) break;
    ::close(fd);  // removed by `jitbench envs rm` while this waited: the file there now
  }
  std::error_code ec;
  if (!fs::exists(root / hash / kEnvRecord, ec)) {
    ::close(fd);  // not held: the lock goes now, not when jitbench exits
    return fmt::format("environment {} was removed after it was built (jitbench envs rm or prune); run again", hash);
  }
  const std::string line = fmt::format("{}\t{}\t{}\n", utc_now(), name, run_dir);
  int uses = -1;
  try {
    uses = open_shared_in(root, fs::path(hash) / kEnvUses, SharedOpen::Append);
  } catch (const WriteError&) {
    // the use is not recorded; the environment is held all the same
  }
  if (uses >= 0) {  // one write of one short line: whole, whatever other runs append beside it
    [[maybe_unused]] auto n = ::write(uses, line.data(), line.size());
    ::close(uses);
  }
  return "";
}

}  // namespace jitbench
