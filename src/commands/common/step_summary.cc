// GITHUB_STEP_SUMMARY (common.h, append_step_summary).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <cstdlib>
#include <cstring>

#include "commands/common/common.h"
#include "util/fs.h"
#include "util/say.h"

namespace jitbench {

void append_step_summary(const std::string& markdown, const char* who) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (!path || !*path) return;
  // O_APPEND: each write lands at the end, whatever other steps wrote before.
  const std::filesystem::path file = std::filesystem::absolute(path);
  int fd = -1, error = 0;
  // Only a regular file (or none yet): opening a FIFO to write would wait for a reader forever.
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(file, ec);
  if (!ec && st.type() != std::filesystem::file_type::regular && st.type() != std::filesystem::file_type::not_found)
    error = st.type() == std::filesystem::file_type::directory ? EISDIR : EINVAL;
  if (!error) try {
      fd = open_shared_in(file.parent_path(), file.filename(), SharedOpen::Append);
    } catch (const WriteError& e) {
      error = e.error ? e.error : EIO;
    }
  const std::string text = "\n" + markdown;
  std::size_t done = 0;
  while (fd >= 0 && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += std::size_t(n);
  }
  if (fd >= 0 && ::close(fd) != 0 && !error) error = errno;
  if (error)
    say(stderr, "{}: warning: cannot append the verdict to GITHUB_STEP_SUMMARY '{}': {} (the verdict and exit code "
                "stand)\n", who, path, error == EINVAL ? "not a regular file" : std::strerror(error));
}

}  // namespace jitbench
