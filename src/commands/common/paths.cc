#include <unistd.h>

#include <cstdlib>

#include "commands/common/common.h"

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

fs::path resolve_native_worker(WorkerKind kind) {
  const bool cuda = kind == WorkerKind::NativeCuda;
  if (const char* env = std::getenv(cuda ? "JITBENCH_NATIVE_CUDA_WORKER" : "JITBENCH_NATIVE_WORKER"); env && *env)
    return fs::absolute(env);
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return (ec ? fs::path(".") : self.parent_path()) /
         (cuda ? "jitbench-native-cuda-worker" : "jitbench-native-worker");
}

std::string resolve_native_blas(const std::string& python) {
  if (const char* env = std::getenv("JITBENCH_NATIVE_BLAS"); env && *env) return env;
  if (python.find('/') == std::string::npos) return "";
  // <prefix>/bin/python -> <prefix>/lib/python3*/site-packages/numpy.libs/libscipy_openblas*.so
  // (not resolving the symlink: a venv's packages live beside its bin/).
  std::error_code ec;
  const fs::path lib = fs::absolute(python, ec).parent_path().parent_path() / "lib";
  for (const auto& py : fs::directory_iterator(lib, ec)) {
    const fs::path libs = py.path() / "site-packages" / "numpy.libs";
    std::error_code ec2;
    for (const auto& f : fs::directory_iterator(libs, ec2)) {
      const auto name = f.path().filename().string();
      if (name.rfind("libscipy_openblas", 0) == 0 && name.find(".so") != std::string::npos) return f.path().string();
    }
  }
  return "";
}

fs::path resolve_figures_dir() {
  if (const char* env = std::getenv("JITBENCH_FIGURES_DIR"); env && *env) return fs::absolute(env);
  return fs::path(JITBENCH_SOURCE_DIR) / "src" / "report" / "figures";
}

fs::path resolve_worker_dir() {
  if (const char* env = std::getenv("JITBENCH_WORKER_DIR"); env && *env) return fs::absolute(env);
  return fs::path(JITBENCH_SOURCE_DIR) / "worker";
}
}  // namespace jitbench
