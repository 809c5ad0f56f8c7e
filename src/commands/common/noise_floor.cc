// --noise-floor D of compare and bisect: the floor `jitbench noise` measured.
#include <fmt/format.h>

#include <filesystem>

#include "commands/common/common.h"
#include "export/json/schema.h"
#include "results/read.h"
#include "util/fs.h"
#include "util/json_parse.h"

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
  // Against its schema first: a file another tool wrote, or an edited one, is refused in one line, never half read.
  auto doc = parse_json(read_file(file));
  if (auto* e = std::get_if<std::string>(&doc))
    throw UserError(fmt::format("{}: {} is not a noise floor jitbench wrote ({}); measure it again with `jitbench "
                                "noise --out-dir DIR`", flag, file.string(), *e));
  if (const auto problems = validate_against(std::get<nlohmann::json>(doc), "jitbench.noise.v1"); !problems.empty())
    throw UserError(fmt::format("{}: {} is not a noise floor jitbench wrote (not jitbench.noise.v1: {}); measure it "
                                "again with `jitbench noise --out-dir DIR`", flag, file.string(), problems.front()));
  auto floor = read_noise(file);
  if (auto* e = std::get_if<std::string>(&floor))
    throw UserError(fmt::format("{}: not a noise floor jitbench wrote ({}); measure it again with `jitbench noise "
                                "--out-dir DIR`", flag, *e));
  return std::get<NoiseFloor>(std::move(floor));
}

}  // namespace jitbench
