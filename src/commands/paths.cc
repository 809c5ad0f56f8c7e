#include <unistd.h>

#include <cstdlib>

#include "commands/commands.h"

namespace jitbench {
namespace fs = std::filesystem;

std::string resolve_python(const std::string& flag) {
  if (!flag.empty()) {
    if (flag.find('/') != std::string::npos && ::access(flag.c_str(), X_OK) != 0)
      throw UserError("--python '" + flag + "' is not an executable file");
    return flag;
  }
  if (const char* env = std::getenv("JITBENCH_PYTHON"); env && *env) return env;
  const fs::path venv = fs::path(JITBENCH_SOURCE_DIR) / ".venv" / "bin" / "python";
  if (::access(venv.c_str(), X_OK) == 0) return venv.string();
  return "python3";
}

fs::path resolve_worker_dir() {
  if (const char* env = std::getenv("JITBENCH_WORKER_DIR"); env && *env) return fs::absolute(env);
  return fs::path(JITBENCH_SOURCE_DIR) / "worker";
}
}  // namespace jitbench
