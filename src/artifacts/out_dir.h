#pragma once
// The run's output directory: refuses to mix with earlier results, writes every
// file atomically, and builds the index (jitbench.index.v1) with the sha256 of
// every file it holds.
#include "results/run_info.h"

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace jitbench {

class OutDir {
 public:
  // Creates path, or accepts an existing empty directory; anything else is an
  // error line (jitbench never mixes with, or deletes, earlier results).
  static std::variant<OutDir, std::string> prepare(const std::filesystem::path& path);
  // A fresh directory name under base: base/run-YYYYmmdd-HHMMSS[-k].
  static std::filesystem::path fresh_default(const std::filesystem::path& base);

  const std::filesystem::path& root() const { return root_; }
  void write_text(const std::string& rel, const std::string& text) const;

  // Every regular file below root except the index itself and compile caches,
  // sorted by path.
  std::vector<FileEntry> file_list() const;

 private:
  explicit OutDir(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path root_;
};

inline constexpr const char* kIndexFile = "index.json";
// Paths the index never lists: itself, the compile caches and temp files.
bool excluded_from_index(const std::filesystem::path& rel);

}  // namespace jitbench
