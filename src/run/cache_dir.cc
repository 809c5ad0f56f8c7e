#include "run/cache_dir.h"

#include <fmt/format.h>

#include <fstream>
#include <system_error>

namespace jitbench {
namespace fs = std::filesystem;

std::optional<std::string> create_owned_cache_dir(const fs::path& root, const std::string& name, fs::path* out) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return fmt::format("bad cache name '{}'", name);
  const fs::path dir = root / "cache" / name;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::exists(dir / kCacheMarker, ec))
    return fmt::format("refusing to use cache directory '{}': it exists and jitbench did not create it", dir.string());
  fs::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create cache directory '{}': {}", dir.string(), ec.message());
  std::ofstream marker(dir / kCacheMarker);
  marker << "Created by jitbench as a compile cache for one case; jitbench empties it between runs.\n";
  if (!marker) return fmt::format("cannot write marker in '{}'", dir.string());
  *out = dir;
  return std::nullopt;
}

std::optional<std::string> empty_owned_cache_dir(const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  const auto refuse = [&](const std::string& why) {
    return fmt::format("refusing to empty '{}': {}", dir.string(), why);
  };
  if (fs::is_symlink(dir, ec)) return refuse("it is a symbolic link");
  if (!fs::is_directory(dir, ec)) return refuse("it is not a directory");
  const fs::path real_dir = fs::canonical(dir, ec);
  if (ec) return refuse(ec.message());
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return refuse("its out dir cannot be resolved: " + ec.message());
  const auto rel = real_dir.lexically_relative(real_root);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return refuse("it is not inside the out dir " + real_root.string());
  const fs::path marker = dir / kCacheMarker;
  if (fs::is_symlink(marker, ec) || !fs::is_regular_file(marker, ec))
    return refuse(fmt::format("it has no {} marker, so jitbench did not create it", kCacheMarker));
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename() == kCacheMarker) continue;
    fs::remove_all(entry.path(), ec);  // does not follow symlinks: removes the link only
    if (ec) return fmt::format("cannot empty '{}': {}", dir.string(), ec.message());
  }
  if (ec) return fmt::format("cannot list '{}': {}", dir.string(), ec.message());
  return std::nullopt;
}

}  // namespace jitbench
