#include "config/input_copies.h"

namespace jitbench {
namespace fs = std::filesystem;

std::string InputCopies::path(const std::string& given) const {
  if (by_source.empty()) return given;
  const fs::path p(given);
  const auto key = (p.is_absolute() ? p : cwd / p).lexically_normal().string();
  const auto it = by_source.find(key);
  return it == by_source.end() ? given : it->second;
}

}  // namespace jitbench
