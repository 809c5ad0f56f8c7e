#include "run/cache_dir.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <system_error>

#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;

std::optional<std::string> create_owned_cache_dir(const fs::path& root, const std::string& name, fs::path* out) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return fmt::format("bad cache name '{}'", name);
  const fs::path rel = fs::path("cache") / name, dir = root / rel;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir, ec)) && !fs::exists(fs::symlink_status(dir / kCacheMarker, ec)))
    return fmt::format("refusing to use cache directory '{}': it exists and jitbench did not create it", dir.string());
  // 0700 and through the door: the frameworks write below it by path, so no
  // link may stand anywhere on the way to it (util/fs.h).
  try {
    make_dir_in(root, "cache", 0700);
    make_dir_in(root, rel, 0700);
    write_file_in(root, rel / kCacheMarker,
                  "Created by jitbench as a compile cache for one case; jitbench empties it between runs.\n");
  } catch (const WriteError& e) {
    if (e.link_refused()) throw;  // a planted link stops the run (exit 13), not just this case
    return fmt::format("cannot create cache directory '{}': {}", dir.string(), e.what());
  }
  *out = dir;
  return std::nullopt;
}

std::optional<std::string> owned_cache_dir_problem(const fs::path& dir, const fs::path& root) {
  const auto refuse = [&](const std::string& why) {
    return fmt::format("refusing to use '{}': {}", dir.string(), why);
  };
  const auto rel = dir.lexically_relative(root);
  if (rel.empty() || rel == "." || *rel.begin() == ".." || *rel.begin() != "cache")
    return refuse("it is not inside the out dir's cache directory " + (root / "cache").string());
  // No link anywhere on the way from the out dir (cache/ itself may have been
  // replaced by one while the run ran): the frameworks write below it by path.
  // A link is the README's exit 13 for the whole run, as the door's refusals are.
  fs::path at = root;
  for (const auto& part : rel) {
    at /= part;
    struct stat link {};
    if (::lstat(at.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      throw WriteError(refuse(fmt::format("'{}' is a symbolic link", at.string())), ELOOP);
  }
  // Still the directory jitbench made, still this user's alone, still marked.
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return refuse("it is missing");
  if (!S_ISDIR(st.st_mode)) return refuse("it is not a directory");
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) return refuse("another user may write to it");
  struct stat marker {};
  if (::lstat((dir / kCacheMarker).c_str(), &marker) != 0 || !S_ISREG(marker.st_mode))
    return refuse(fmt::format("it has no {} marker, so jitbench did not create it", kCacheMarker));
  return std::nullopt;
}

std::optional<std::string> empty_owned_cache_dir(const fs::path& dir, const fs::path& root) {
  if (auto problem = owned_cache_dir_problem(dir, root)) return problem;
  try {
    empty_dir_in(root, dir.lexically_relative(root), {kCacheMarker});  // nothing below it followed
  } catch (const WriteError& e) {
    if (e.link_refused()) throw;
    return fmt::format("cannot empty '{}': {}", dir.string(), e.what());
  }
  return std::nullopt;
}

}  // namespace jitbench
