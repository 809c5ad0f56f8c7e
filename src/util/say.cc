#include "util/say.h"

namespace jitbench {
namespace {
bool g_stdout_broken = false, g_stderr_broken = false;
}

void write_quietly(std::FILE* f, std::string_view text) {
  bool& broken = f == stderr ? g_stderr_broken : g_stdout_broken;
  if (broken) return;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  if (!ok) {
    broken = true;
    std::clearerr(f);
  }
}
}  // namespace jitbench
