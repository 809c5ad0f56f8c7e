#pragma once
// The one door for everything jitbench writes, creates, renames, removes or
// re-modes under a root it owns (an out dir, a site, an environment cache, a
// private temporary directory): the path below the (trusted, user-named) root
// is resolved with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the
// kernel has it, else walked one component at a time with O_NOFOLLOW, so no
// symbolic link planted below the root can send a write, a removal or a mode
// change elsewhere; a file is written to a temporary in the same directory and
// renamed, so a reader, an interrupted run or a full disk only ever leaves the
// old or the new complete file (the temporary is removed on every failure).
// tests/test_architecture.py fails on a write, removal, rename, mkdir or chmod
// in src/ that does not go through here.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace jitbench {

// A write that failed: the file named, the errno kept (ENOSPC, EROFS, ELOOP...).
struct WriteError : std::runtime_error {
  WriteError(const std::string& what, int err) : std::runtime_error(what), error(err) {}
  int error;
  // Refused because a component below the root is a symbolic link or not a
  // directory (ELOOP, ENOTDIR): the README's exit 13, not a full disk's 4.
  bool link_refused() const;
};

// Writes root/rel atomically; creates the directories of rel below root.
// Throws WriteError, naming a link when a component of rel is one.
void write_file_in(const std::filesystem::path& root, const std::filesystem::path& rel, std::string_view contents);
// Opens root/rel for writing as a new, empty file (a fresh inode renamed over
// whatever was there: a link, hard or symbolic, is replaced, never written
// through); creates the directories of rel without following links. Returns a
// descriptor with O_CLOEXEC, or throws WriteError.
// Several files as one step: every file is written to its temporary first,
// and only when all are written are they renamed into place. A failure leaves
// every destination as it was (and no temporary behind).
struct FileWrite {
  std::filesystem::path rel;
  std::string contents;
};
void write_files_in(const std::filesystem::path& root, const std::vector<FileWrite>& files);
int open_file_in(const std::filesystem::path& root, const std::filesystem::path& rel);
// Atomic write to a path the user named (compare --csv): its own directory is
// the root, the file itself is never followed if it is a link.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

// root/rel as a directory, created with the directories above it (below root)
// where missing; `mode` is given to those it creates and to rel itself (fchmod
// on the descriptor the walk opened: never a link's target). Throws WriteError.
void make_dir_in(const std::filesystem::path& root, const std::filesystem::path& rel, unsigned mode = 0755);
// Removes root/rel: a file, a symbolic link (itself, never its target) or a
// directory with everything below it, no link below it followed. Absent:
// nothing to do. Throws WriteError (a link among rel's parents included).
void remove_in(const std::filesystem::path& root, const std::filesystem::path& rel);
// Removes everything inside the directory root/rel except the names in keep.
void empty_dir_in(const std::filesystem::path& root, const std::filesystem::path& rel,
                  const std::vector<std::string>& keep = {});
// Renames root/from to root/to (replacing a file or an empty directory there),
// both resolved through the walk. Throws WriteError.
void rename_in(const std::filesystem::path& root, const std::filesystem::path& from,
               const std::filesystem::path& to);
// An existing regular file below root opened for reading (O_CLOEXEC), reached
// through no link. Throws WriteError.
int open_read_in(const std::filesystem::path& root, const std::filesystem::path& rel);
// The whole of that file (open_read_in, then read to its end).
std::string read_file_in(const std::filesystem::path& root, const std::filesystem::path& rel);
// root/rel opened as it is, for a lock (O_RDWR) or for appending lines
// (O_WRONLY | O_APPEND), created when missing (mode 0644): a file that
// several processes share by name, so never replaced; a link at rel or above
// it is refused. Returns a descriptor with O_CLOEXEC, or throws WriteError.
enum class SharedOpen { Lock, Append };
int open_shared_in(const std::filesystem::path& root, const std::filesystem::path& rel, SharedOpen how);
// The root itself, a path the user named (--out-dir, --to): created with its
// parents as that path says; it must end in a directory. Throws WriteError.
void make_root_dir(const std::filesystem::path& path);

// A directory of jitbench's own under $TMPDIR (mkdtemp: a fresh name, mode
// 0700), removed with everything in it by the door when it goes out of scope.
class PrivateDir {
 public:
  explicit PrivateDir(const std::string& prefix);
  ~PrivateDir();
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Still the directory it made (lstat: a directory, not a link, mode 0700,
  // this user's): a framework writes below it by path.
  bool intact() const;

 private:
  std::filesystem::path path_;
};

// True for a path that stays below whatever it is joined to: relative, no
// empty, "." or ".." component.
bool is_plain_relative(std::string_view rel);
// True when some component of rel below root is a symbolic link (or missing).
bool crosses_link(const std::filesystem::path& root, const std::filesystem::path& rel);

// The whole of a regular file: opened without following a final symbolic link
// and without blocking (a FIFO planted where a file should be never hangs the
// reader), checked with fstat to be a regular file (never /dev/zero or a
// device), and read into one string of its size. Throws std::runtime_error
// naming the path and the problem. A file the user names (a suite) may be
// reached through a link: follow_link.
std::string read_file(const std::filesystem::path& path, bool follow_link = false);
// A regular file of the system (/proc, /sys, /etc: their stat size is often 0),
// read to its end but at most `cap` bytes: opened without blocking (a FIFO
// never hangs the reader) and only if fstat says regular (never /dev/zero).
// nullopt when it is not a regular file or cannot be read.
std::optional<std::string> read_capped(const std::filesystem::path& path, std::size_t cap = std::size_t(1) << 22);
// The last non-empty line of a text file ("" when it has none or cannot be read).
std::string last_line(const std::filesystem::path& path);
// CLOCK_MONOTONIC in nanoseconds: the clock the worker's hello message uses too.
long long monotonic_ns();
}  // namespace jitbench
