#include "run/cache_watch.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <system_error>
#include <vector>

#include "run/cache_dir.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
constexpr std::uint32_t kMask = IN_ACCESS | IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO |
                                IN_MOVED_FROM | IN_ONLYDIR | IN_DONT_FOLLOW;
// More directories than this and the evidence is not worth the watches.
constexpr std::size_t kMaxWatches = 8192;

std::string joined(const std::string& dir, const char* name) {
  if (dir.empty()) return name;
  return dir + "/" + name;
}
}  // namespace

CacheListing list_cache_dir(const fs::path& dir) {
  CacheListing out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    const auto rel = it->path().lexically_relative(dir).string();
    if (rel == kCacheMarker) continue;
    const auto size = it->file_size(ec);
    const auto mtime = it->last_write_time(ec).time_since_epoch();
    out[rel] = {ec ? 0 : size, std::chrono::duration_cast<std::chrono::nanoseconds>(mtime).count()};
  }
  return out;
}

CacheWatch::CacheWatch(const fs::path& dir) : dir_(dir) {
  if (dir.empty()) {
    note_ = "the case has no cache directory";
    return;
  }
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) {
    note_ = std::string("inotify is unavailable: ") + strerror(errno);
  } else {
    std::error_code ec;
    std::vector<fs::path> dirs{dir};
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (!it->is_symlink(ec) && it->is_directory(ec)) dirs.push_back(it->path());
    if (ec) note_ = "cannot list the cache directory: " + ec.message();
    for (const auto& d : dirs) {
      if (!note_.empty()) break;
      if (watches_.size() >= kMaxWatches) {
        note_ = "the cache directory has more than " + std::to_string(kMaxWatches) + " directories";
        break;
      }
      const int wd = ::inotify_add_watch(fd_, d.c_str(), kMask);
      if (wd < 0) {
        note_ = std::string("inotify cannot watch ") + d.string() + ": " + strerror(errno);
        break;
      }
      const auto rel = d.lexically_relative(dir).string();
      watches_[wd] = rel == "." ? "" : rel;
    }
  }
  before_ = list_cache_dir(dir);
}

CacheWatch::~CacheWatch() {
  if (fd_ >= 0) ::close(fd_);
}

void CacheWatch::drain() {
  alignas(struct inotify_event) char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EAGAIN: every queued event read
    for (ssize_t off = 0; off + static_cast<ssize_t>(sizeof(inotify_event)) <= n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        note_ = "the kernel's inotify queue overflowed: some file events were lost";
        continue;
      }
      const auto w = watches_.find(ev->wd);
      if (w == watches_.end() || ev->len == 0 || (ev->mask & IN_ISDIR)) continue;
      const auto path = joined(w->second, ev->name);
      if (ev->mask & IN_ACCESS) read_.insert(path);
      if (ev->mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM))
        changed_.insert(path);
    }
  }
}

CacheObservation CacheWatch::finish() {
  CacheObservation o;
  if (fd_ >= 0) drain();
  const auto after = list_cache_dir(dir_);
  for (const auto& [path, meta] : before_) {
    ++o.files_before;
    o.bytes_before += meta.first;
    const auto a = after.find(path);
    if (a == after.end()) ++o.removed;
    else if (a->second != meta || changed_.count(path)) ++o.modified;
    else if (read_.count(path)) ++o.entries_read;
  }
  for (const auto& [path, meta] : after) {
    ++o.files_after;
    o.bytes_after += meta.first;
    if (!before_.count(path)) ++o.added;
  }
  o.watched = fd_ >= 0 && note_.empty();
  o.note = o.watched ? "" : note_;
  return o;
}

}  // namespace jitbench
