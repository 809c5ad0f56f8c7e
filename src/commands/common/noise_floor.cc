// --noise-floor D of compare and bisect: the floor `jitbench noise` measured.
#include <fmt/format.h>

#include <filesystem>

#include "commands/common/common.h"
#include "results/read.h"

namespace jitbench {

NoiseFloor load_noise_floor(const std::string& dir, const char* flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UserError(fmt::format("{} '{}' is not a directory: give the --out-dir of a `jitbench noise` run", flag, dir));
  const fs::path file = fs::path(dir) / "noise.json";
  if (!fs::exists(file, ec))
    throw UserError(fmt::format("{} '{}' has no noise.json: give the --out-dir of a finished `jitbench noise` run "
                                "(an interrupted one writes none)", flag, dir));
  auto floor = read_noise(file);
  if (auto* e = std::get_if<std::string>(&floor))
    throw UserError(fmt::format("{}: not a noise floor jitbench wrote ({}); measure it again with `jitbench noise "
                                "--out-dir DIR`", flag, *e));
  return std::get<NoiseFloor>(std::move(floor));
}

}  // namespace jitbench
