#include "artifacts/out_dir.h"

#include <fmt/format.h>

#include <ctime>

#include "util/fs.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;

bool excluded_from_index(const fs::path& rel) {
  if (rel == kIndexFile) return true;
  // cache/: compile caches; report/: views `jitbench report` derives from the indexed files.
  if (!rel.empty() && (*rel.begin() == "cache" || *rel.begin() == "report")) return true;
  const auto name = rel.filename().string();
  return name.size() > 4 && name.front() == '.' && name.ends_with(".tmp");
}

std::variant<OutDir, std::string> OutDir::prepare(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) return fmt::format("--out-dir '{}' exists and is not a directory", path.string());
    if (!fs::is_empty(path, ec))
      return fmt::format(
          "--out-dir '{}' already holds files; jitbench never mixes or deletes earlier results: pass a new or empty "
          "directory",
          path.string());
  }
  fs::create_directories(path, ec);
  if (ec) return fmt::format("cannot create --out-dir '{}': {}", path.string(), ec.message());
  return OutDir(fs::absolute(path));
}

fs::path OutDir::fresh_default(const fs::path& base) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "run-%Y%m%d-%H%M%S", &tm);
  fs::path p = base / stamp;
  for (int k = 2; fs::exists(p); ++k) p = base / fmt::format("{}-{}", stamp, k);
  return p;
}

void OutDir::write_text(const std::string& rel, const std::string& text) const {
  write_file_atomic(root_ / rel, text);
}

std::vector<FileEntry> OutDir::file_list() const {
  std::vector<fs::path> rels;
  for (const auto& e : fs::recursive_directory_iterator(root_)) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    auto rel = fs::relative(e.path(), root_);
    if (!excluded_from_index(rel)) rels.push_back(rel);
  }
  std::sort(rels.begin(), rels.end());
  std::vector<FileEntry> out;
  for (const auto& rel : rels) out.push_back({rel.string(), sha256_file(root_ / rel), fs::file_size(root_ / rel)});
  return out;
}

}  // namespace jitbench
