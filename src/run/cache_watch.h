#pragma once
// What jitbench itself saw of a case's compile-cache directory while one worker
// ran: the evidence every cache claim is judged by, taken by the parent, never
// by the worker (a worker's own count is its word). An inotify watch on every
// directory that existed before the spawn says which existing entries were
// read; a listing (path, size, mtime) before and after says what was written,
// added or removed, in any directory, with or without inotify.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "results/model.h"

namespace jitbench {

// A snapshot of the regular files below a directory (the marker file is not
// an entry): relative path -> (bytes, mtime in ns). Links are not followed.
using CacheListing = std::map<std::string, std::pair<std::uint64_t, std::int64_t>>;
CacheListing list_cache_dir(const std::filesystem::path& dir);

// Started before the worker is spawned, finished after it was reaped: the
// kernel keeps the events queued in between, so no thread is needed. Files
// in directories created during the run are found by the second listing.
class CacheWatch {
 public:
  explicit CacheWatch(const std::filesystem::path& dir);  // "" = no cache directory
  ~CacheWatch();
  CacheWatch(const CacheWatch&) = delete;
  CacheWatch& operator=(const CacheWatch&) = delete;
  CacheObservation finish();

 private:
  void drain();
  std::filesystem::path dir_;
  int fd_ = -1;
  std::map<int, std::string> watches_;  // watch descriptor -> directory, relative to dir_
  CacheListing before_;
  std::set<std::string> read_, changed_;  // relative paths the events named
  std::string note_;
};

}  // namespace jitbench
