#include "config/input_copies.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
struct Copies {
  fs::path cwd;
  std::map<std::string, std::string> by_source;
};
Copies& copies() {
  static Copies c;
  return c;
}
}  // namespace

void use_input_copies(const fs::path& cwd, std::map<std::string, std::string> source_to_copy) {
  copies() = {cwd, std::move(source_to_copy)};
}

std::string input_path(const std::string& path) {
  const auto& c = copies();
  if (c.by_source.empty()) return path;
  const fs::path p(path);
  const auto key = (p.is_absolute() ? p : c.cwd / p).lexically_normal().string();
  const auto it = c.by_source.find(key);
  return it == c.by_source.end() ? path : it->second;
}

}  // namespace jitbench
