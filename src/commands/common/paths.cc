#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>

#include "commands/common/common.h"
#include "util/build_info.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
fs::path this_binary_dir() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

// Installed by pip (pyproject.toml): the packages it runs live under
// <site-packages>/jitbench/_data/ and the environment's interpreter in
// <prefix>/bin. The binary is <prefix>/bin/jitbench as built, or
// <site-packages>/jitbench.scripts/jitbench once auditwheel has repaired the
// wheel (bin/jitbench is then a launcher that execs it). Empty when this
// binary is a build in a source tree.
struct Installed {
  fs::path data, bin;
};

const Installed& installed() {
  static const Installed found = [] {
    const auto exe = this_binary_dir();
    std::error_code ec;
    const auto has_worker = [&](const fs::path& data) {
      return fs::is_regular_file(data / "worker" / "jitbench_worker" / "__init__.py", ec);
    };
    if (exe.empty()) return Installed{};
    if (exe.filename() == "jitbench.scripts" && has_worker(exe.parent_path() / "jitbench" / "_data"))
      return Installed{exe.parent_path() / "jitbench" / "_data",  // <prefix>/lib/python3.X/site-packages/..
                       exe.parent_path().parent_path().parent_path().parent_path() / "bin"};
    for (const char* lib : {"lib", "lib64"})  // a venv, --user, --prefix; Fedora's lib64; Debian's dist-packages
      for (const auto& py : fs::directory_iterator(exe.parent_path() / lib, ec))
        for (const char* dir : {"site-packages", "dist-packages"})
          if (const auto data = py.path() / dir / "jitbench" / "_data"; has_worker(data)) return Installed{data, exe};
    return Installed{};
  }();
  return found;
}

#ifdef JITBENCH_INSTALLED
constexpr bool kInstalledByPip = true;  // the source tree it was built from is no place to look
#else
constexpr bool kInstalledByPip = false;
#endif

// The installation's `sub` directory (worker, figures), else the source tree's `in_source`.
fs::path data_dir(const char* sub, const fs::path& in_source) {
  if (const auto& data = installed().data; !data.empty()) return data / sub;
  if (kInstalledByPip)
    throw UserError(fmt::format("this jitbench was installed by pip, but its {} package is not in its installation "
                                "(site-packages/jitbench/_data beside {}): reinstall it, or set JITBENCH_WORKER_DIR "
                                "and JITBENCH_FIGURES_DIR", sub, this_binary_dir().string()));
  return fs::path(source_dir()) / in_source;
}
}  // namespace

std::string resolve_python(const std::string& flag) {
  if (!flag.empty()) {
    if (flag.find('/') != std::string::npos && ::access(flag.c_str(), X_OK) != 0)
      throw UserError("--python '" + flag + "' is not an executable file");
    return flag;
  }
  if (const char* env = std::getenv("JITBENCH_PYTHON"); env && *env) return env;
  // Installed: the interpreter of the environment it was installed into.
  if (!installed().data.empty())
    for (const char* name : {"python", "python3"})
      if (const auto p = installed().bin / name; ::access(p.c_str(), X_OK) == 0) return p.string();
  const fs::path venv = fs::path(source_dir()) / ".venv" / "bin" / "python";
  if (!kInstalledByPip && ::access(venv.c_str(), X_OK) == 0) return venv.string();
  return "python3";
}

fs::path resolve_native_worker(WorkerKind kind) {
  const bool cuda = kind == WorkerKind::NativeCuda;
  if (const char* env = std::getenv(cuda ? "JITBENCH_NATIVE_CUDA_WORKER" : "JITBENCH_NATIVE_WORKER"); env && *env)
    return fs::absolute(env);
  const auto bin = this_binary_dir();
  return (bin.empty() ? fs::path(".") : bin) / (cuda ? "jitbench-native-cuda-worker" : "jitbench-native-worker");
}

fs::path resolve_count_library() {
  if (const char* env = std::getenv("JITBENCH_COUNT_LIB"); env && *env) return fs::absolute(env);
  if (const auto& data = installed().data; !data.empty()) return data / "lib" / "libjitbench-count.so";
  const auto bin = this_binary_dir();
  return (bin.empty() ? fs::path(".") : bin) / "libjitbench-count.so";
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
  return data_dir("figures", fs::path("src") / "report" / "figures");
}

fs::path resolve_worker_dir() {
  if (const char* env = std::getenv("JITBENCH_WORKER_DIR"); env && *env) return fs::absolute(env);
  return data_dir("worker", "worker");
}
}  // namespace jitbench
