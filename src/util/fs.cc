#include "util/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <utility>

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// Closes a descriptor on every exit path.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

[[noreturn]] void fail(const std::string& what, const fs::path& p, int err) {
  if (err == ELOOP || err == ENOTDIR)
    throw WriteError("cannot write " + p.string() + ": a component is a symbolic link or not a directory; jitbench "
                     "never writes through a link",
                     err);
  throw WriteError("cannot " + what + " " + p.string() + ": " + std::strerror(err), err);
}

// The directory root/rel, walked and created one component at a time, never
// following a link below root.
Fd open_dir_below(const fs::path& root, const fs::path& rel) {
  Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) fail("open", root, errno);
  fs::path at = root;
  for (const auto& part : rel) {
    if (part.empty() || part == ".") continue;
    at /= part;
    if (part == "..") fail("open", at, EINVAL);
    int next = ::openat(dir.fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT) {
      if (::mkdirat(dir.fd, part.c_str(), 0755) != 0 && errno != EEXIST) fail("create", at, errno);
      next = ::openat(dir.fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (next < 0) fail("open", at, errno);
    ::close(dir.fd);
    dir.fd = next;
  }
  return Fd(dir.release());
}

void write_all(int fd, std::string_view contents, const fs::path& p) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", p, errno);
    done += static_cast<std::size_t>(n);
  }
}

// One file written to its temporary beside the destination, not yet renamed.
struct Staged {
  std::shared_ptr<Fd> dir;
  std::string tmp, name;
  fs::path shown;
};

Staged stage(const fs::path& root, const fs::path& rel, std::string_view contents) {
  Staged s{std::make_shared<Fd>(open_dir_below(root, rel.parent_path()).release()), "", rel.filename().string(),
           root / rel};
  s.tmp = "." + s.name + ".tmp";
  const int dir = s.dir->fd;
  ::unlinkat(dir, s.tmp.c_str(), 0);  // a stale temporary, or a link planted in its place
  Fd out(::openat(dir, s.tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.fd < 0) fail("write", s.shown, errno);
  try {
    write_all(out.fd, contents, s.shown);
    if (::fsync(out.fd) != 0) fail("flush", s.shown, errno);
    if (::close(out.release()) != 0) fail("flush", s.shown, errno);
  } catch (...) {
    ::unlinkat(dir, s.tmp.c_str(), 0);
    throw;
  }
  return s;
}
}  // namespace

void write_files_in(const fs::path& root, const std::vector<FileWrite>& files) {
  std::vector<Staged> staged;
  try {
    for (const auto& f : files) staged.push_back(stage(root, f.rel, f.contents));
    // rename replaces a link at the destination, never the file it points to
    for (auto& s : staged) {
      if (::renameat(s.dir->fd, s.tmp.c_str(), s.dir->fd, s.name.c_str()) != 0) fail("rename into", s.shown, errno);
      s.tmp.clear();
    }
  } catch (...) {
    for (const auto& s : staged)
      if (!s.tmp.empty()) ::unlinkat(s.dir->fd, s.tmp.c_str(), 0);
    throw;
  }
}

void write_file_in(const fs::path& root, const fs::path& rel, std::string_view contents) {
  write_files_in(root, {{rel, std::string(contents)}});
}

int open_file_in(const fs::path& root, const fs::path& rel) {
  // A fresh inode renamed into place: whatever was at rel (a symbolic link, a
  // hard link to a file outside the out dir, an old log a lingering process
  // still appends to) is replaced, never written through or truncated.
  const Fd dir = open_dir_below(root, rel.parent_path());
  const std::string name = rel.filename().string(), tmp = "." + name + ".tmp";
  ::unlinkat(dir.fd, tmp.c_str(), 0);
  Fd fd(::openat(dir.fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.fd < 0) fail("open", root / rel, errno);
  if (::renameat(dir.fd, tmp.c_str(), dir.fd, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir.fd, tmp.c_str(), 0);
    fail("open", root / rel, err);
  }
  return fd.release();
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  write_file_in(parent, path.filename(), contents);
}

bool is_plain_relative(std::string_view rel) {
  if (rel.empty() || rel.front() == '/') return false;
  std::size_t start = 0;
  for (;;) {
    const auto end = rel.find('/', start);
    const auto part = rel.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

bool crosses_link(const fs::path& root, const fs::path& rel) {
  fs::path at = root;
  for (const auto& part : rel) {
    at /= part;
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return true;
  }
  return false;
}

std::string read_file(const fs::path& path, bool follow_link) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_link ? 0 : O_NOFOLLOW)));
  if (fd.fd < 0) {
    const int err = errno;
    if (err == ELOOP) throw std::runtime_error("cannot read " + path.string() + ": it is a symbolic link");
    throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("cannot read " + path.string() + ": not a regular file (" +
                             (S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                              : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file") + ")");
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd.fd, out.data() + done, out.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(errno));
    if (n == 0) break;  // the file shrank while being read
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}
std::string last_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

}  // namespace jitbench
