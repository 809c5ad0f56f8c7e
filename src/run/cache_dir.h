#pragma once
// Compile-cache directories that jitbench creates, owns and empties. jitbench
// empties a directory only when it is strictly inside the run's out dir, is a
// real directory (not a symlink), and carries the marker file jitbench wrote.
#include <filesystem>
#include <optional>
#include <string>

namespace jitbench {

inline constexpr const char* kCacheMarker = ".jitbench-cache";

// Creates <root>/cache/<name>/ with the marker. Returns an error line on failure.
std::optional<std::string> create_owned_cache_dir(const std::filesystem::path& root, const std::string& name,
                                                  std::filesystem::path* out);

// Why dir is not (or no longer) a cache directory jitbench made: a link in its
// place, another user's or writable by others, no marker, not inside root's
// cache/. Checked before every process, whose framework writes below it by path.
std::optional<std::string> owned_cache_dir_problem(const std::filesystem::path& dir,
                                                   const std::filesystem::path& root);

// Removes everything in dir except the marker, after the checks above.
// Returns an error line (and deletes nothing) when a check fails.
std::optional<std::string> empty_owned_cache_dir(const std::filesystem::path& dir,
                                                 const std::filesystem::path& root);

}  // namespace jitbench
