#include "util/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <memory>
#include <utility>

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// Closes a descriptor on every exit path.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      if (fd >= 0) ::close(fd);
      fd = other.release();
    }
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

[[noreturn]] void fail(const std::string& what, const fs::path& p, int err) {
  if (err == ELOOP || err == ENOTDIR || err == EXDEV)
    throw WriteError("cannot " + what + " " + p.string() + ": a component is a symbolic link or not a directory; " +
                         "jitbench never writes through a link: remove it, or give another directory",
                     ELOOP);
  throw WriteError("cannot " + what + " " + p.string() + ": " + std::strerror(err), err);
}

// openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: the whole of rel below
// dir in one call, no link and no ".." followed. -1 with errno; ENOSYS where
// the kernel lacks it (the caller walks instead).
int open_beneath(int dir, const fs::path& rel, int flags) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_NOFOLLOW | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how));
#else
  errno = ENOSYS;
  return -1;
#endif
}

// The directory root/rel, never through a link below root: resolved by
// openat2 in one call where the kernel has it; walked one component at a time
// with O_NOFOLLOW where it has not, or where `create` must make what is
// missing (with `mode`).
Fd open_dir_below(const fs::path& root, const fs::path& rel, bool create = true, unsigned mode = 0755) {
  Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) fail("open", root, errno);
  if (const fs::path plain = rel.lexically_normal(); !plain.empty() && plain != ".") {
    if (*plain.begin() == ".." || plain.is_absolute()) fail("open", root / rel, EINVAL);
    const int whole = open_beneath(dir.fd, plain, O_RDONLY | O_DIRECTORY);
    if (whole >= 0) {
      ::close(dir.fd);
      dir.fd = whole;
      return Fd(dir.release());
    }
    if (errno == ELOOP || errno == EXDEV || errno == ENOTDIR) fail("open", root / rel, errno);
  }
  fs::path at = root;
  for (const auto& part : rel) {
    if (part.empty() || part == ".") continue;
    at /= part;
    if (part == "..") fail("open", at, EINVAL);
    int next = ::openat(dir.fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(dir.fd, part.c_str(), mode) != 0 && errno != EEXIST) fail("create", at, errno);
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
  make_root_dir(parent);
  write_file_in(parent, path.filename(), contents);
}

bool WriteError::link_refused() const { return error == ELOOP; }

namespace {
std::string fmt_errno(const std::string& what, int err) { return what + ": " + std::strerror(err); }
}  // namespace

namespace {
// The name rel ends in, and its parent directory opened through the walk.
struct Entry {
  Fd dir;
  std::string name;
};
Entry entry_below(const fs::path& root, const fs::path& rel, bool create_parents) {
  const fs::path plain = rel.lexically_normal();
  if (plain.empty() || plain == "." || plain.filename().empty() || plain.filename() == "..")
    fail("use", root / rel, EINVAL);
  return {open_dir_below(root, plain.parent_path(), create_parents), plain.filename().string()};
}

constexpr int kMaxRemoveDepth = 4096;  // a tree deeper than this is not one jitbench made

// Everything inside the open directory dir (not dir itself), no link followed.
void empty_fd(int dir, const fs::path& shown, const std::vector<std::string>& keep, int depth);

void remove_at(int dir, const std::string& name, const fs::path& shown, int depth) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    fail("remove", shown, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    if (depth > kMaxRemoveDepth) fail("remove", shown, ELOOP);
    Fd sub(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.fd < 0) fail("remove", shown, errno);
    empty_fd(sub.fd, shown, {}, depth + 1);
    if (::unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) fail("remove", shown, errno);
    return;
  }
  if (::unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT) fail("remove", shown, errno);
}

void empty_fd(int dir, const fs::path& shown, const std::vector<std::string>& keep, int depth) {
  const int listing = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
  if (listing < 0) fail("list", shown, errno);
  DIR* d = ::fdopendir(listing);
  if (!d) {
    const int err = errno;
    ::close(listing);
    fail("list", shown, err);
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != ".." && std::find(keep.begin(), keep.end(), n) == keep.end()) names.push_back(n);
  }
  ::closedir(d);
  for (const auto& n : names) remove_at(dir, n, shown / n, depth);
}
}  // namespace

void make_dir_in(const fs::path& root, const fs::path& rel, unsigned mode) {
  const Fd dir = open_dir_below(root, rel, true, mode);
  if (::fchmod(dir.fd, mode) != 0) fail("set the mode of", root / rel, errno);
}

void remove_in(const fs::path& root, const fs::path& rel) {
  Entry e;
  try {
    e = entry_below(root, rel, false);
  } catch (const WriteError& err) {
    if (err.error == ENOENT) return;  // a parent is missing: so is rel
    throw;
  }
  remove_at(e.dir.fd, e.name, root / rel, 0);
}

void empty_dir_in(const fs::path& root, const fs::path& rel, const std::vector<std::string>& keep) {
  const Fd dir = open_dir_below(root, rel, false);
  empty_fd(dir.fd, root / rel, keep, 0);
}

void rename_in(const fs::path& root, const fs::path& from, const fs::path& to) {
  const Entry a = entry_below(root, from, false), b = entry_below(root, to, true);
  if (::renameat(a.dir.fd, a.name.c_str(), b.dir.fd, b.name.c_str()) != 0)
    fail("rename " + (root / from).string() + " to", root / to, errno);
}

int open_read_in(const fs::path& root, const fs::path& rel) {
  const Entry e = entry_below(root, rel, false);
  Fd fd(::openat(e.dir.fd, e.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.fd < 0) fail("open", root / rel, errno);
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) fail("open", root / rel, errno);
  if (!S_ISREG(st.st_mode)) fail("open", root / rel, EINVAL);
  return fd.release();
}

std::string read_file_in(const fs::path& root, const fs::path& rel) {
  const Fd fd(open_read_in(root, rel));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) fail("read", root / rel, errno);
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

int open_shared_in(const fs::path& root, const fs::path& rel, SharedOpen how) {
  const Entry e = entry_below(root, rel, false);
  const int flags = how == SharedOpen::Lock ? O_RDWR : O_WRONLY | O_APPEND;
  const int fd = ::openat(e.dir.fd, e.name.c_str(), flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail("open", root / rel, errno);
  return fd;
}

void make_root_dir(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path, ec);  // the user's own path: its links are the user's
  if (ec) fail("create", path, ec.value());
  if (!fs::is_directory(path, ec)) fail("create", path, ENOTDIR);
}

PrivateDir::PrivateDir(const std::string& prefix) {
  const char* tmpdir = std::getenv("TMPDIR");
  const fs::path base = tmpdir && *tmpdir ? fs::path(tmpdir) : fs::path("/tmp");
  std::string templ = (base / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr)
    throw WriteError(fmt_errno("cannot create a temporary directory " + templ, errno) +
                         "; set TMPDIR to a writable directory",
                     errno);
  path_ = templ;
}

PrivateDir::~PrivateDir() {
  if (!intact()) return;  // replaced by something else: nothing of it is removed
  try {
    empty_dir_in(path_, ".");
    ::rmdir(path_.c_str());
  } catch (const WriteError&) {
    // what a process left there that cannot be removed stays in $TMPDIR
  }
}

bool PrivateDir::intact() const {
  struct stat st {};
  return ::lstat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 &&
         st.st_uid == ::geteuid();
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

std::optional<std::string> read_capped(const fs::path& path, std::size_t cap) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  char buf[1 << 14];
  while (out.size() < cap) {
    const ssize_t n = ::read(fd.fd, buf, std::min(sizeof buf, cap - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
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
