#include "util/say.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include "util/fs.h"

namespace jitbench {
namespace {
std::atomic<bool> g_stdout_broken{false}, g_stderr_broken{false};  // the ticker's thread writes too
}

void write_quietly(std::FILE* f, std::string_view text) {
  std::atomic<bool>& broken = f == stderr ? g_stderr_broken : g_stdout_broken;
  if (broken) return;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  if (!ok) {
    broken = true;
    std::clearerr(f);
  }
}
void write_product(std::string_view text, const char* what) {
  errno = 0;
  const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  if (!ok) {
    const int err = errno ? errno : EIO;
    std::clearerr(stdout);
    throw WriteError(std::string("cannot write ") + what + " to standard output: " + std::strerror(err), err);
  }
}
}  // namespace jitbench
