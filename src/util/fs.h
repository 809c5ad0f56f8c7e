#pragma once
// Files jitbench writes. Everything under an out dir is written through
// write_file_in / open_file_in: the path below the (trusted) root is walked
// one component at a time with O_NOFOLLOW, so no symbolic link planted inside
// the out dir can send a write elsewhere; a file is written to a temporary in
// the same directory and renamed, so a reader, an interrupted run or a full
// disk only ever leaves the old or the new complete file (the temporary is
// removed on every failure).
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace jitbench {

// A write that failed: the file named, the errno kept (ENOSPC, EROFS, ELOOP...).
struct WriteError : std::runtime_error {
  WriteError(const std::string& what, int err) : std::runtime_error(what), error(err) {}
  int error;
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
// The last non-empty line of a text file ("" when it has none or cannot be read).
std::string last_line(const std::filesystem::path& path);
// CLOCK_MONOTONIC in nanoseconds: the clock the worker's hello message uses too.
long long monotonic_ns();
}  // namespace jitbench
