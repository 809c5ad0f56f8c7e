#include "artifacts/out_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>

#include "util/fs.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;

bool excluded_from_index(const fs::path& rel) {
  if (rel == kIndexFile || rel == kLockFile) return true;
  // Signatures over the index (and a replication report) sign what the index lists: never in it.
  if (rel == kIndexSignatureFile || rel == kReplicationSignatureFile) return true;
  // cache/: compile caches; report/: views `jitbench report` derives from the indexed files.
  if (!rel.empty() && (*rel.begin() == "cache" || *rel.begin() == "report")) return true;
  const auto name = rel.filename().string();
  return name.size() > 4 && name.front() == '.' && name.ends_with(".tmp");
}

Remade remade_on_resume(const fs::path& rel, std::string* case_id) {
  const std::string r = rel.generic_string(), dir = rel.parent_path().generic_string();
  // logs/probe.log: the worker probe's log, written after the starting index and again by the resumed run.
  if (r == "analysis.json" || r == "summary.md" || r == "ml/ml_suite.json" || r == "ml/README_snippet_ml.md" ||
      r == "logs/probe.log")
    return Remade::Derived;
  std::string id;
  if (std::distance(rel.begin(), rel.end()) == 3 && *rel.begin() == "logs")
    id = std::next(rel.begin())->string();
  else if ((dir == "references" && rel.extension() == ".pickle") ||
           ((dir == "cases" || dir == "ml/cases") && rel.extension() == ".json"))
    id = rel.stem().string();
  if (id.empty() || id.front() == '.') return Remade::No;
  if (case_id) *case_id = id;
  return Remade::CaseFile;
}

struct OutDirLock::Held {
  int fd = -1;
  ~Held() {
    if (fd >= 0) ::close(fd);  // closing releases the fcntl lock
  }
};

namespace {
std::string in_use(const fs::path& dir, std::optional<pid_t> pid, OutDirLock::Named named = OutDirLock::kOutDir) {
  return fmt::format("{} '{}' is in use by another jitbench{}; wait for it to finish or {}", named.noun, dir.string(),
                     pid ? fmt::format(" (pid {})", *pid) : "", named.elsewhere);
}

// The pid holding the lock on fd's file, if another process holds it.
std::optional<pid_t> lock_holder(int fd) {
  struct flock who {};
  who.l_type = F_WRLCK;
  who.l_whence = SEEK_SET;
  if (::fcntl(fd, F_GETLK, &who) != 0 || who.l_type == F_UNLCK) return std::nullopt;
  return who.l_pid;
}
}  // namespace

std::optional<std::string> OutDirLock::in_use_by_other(const fs::path& dir) {
  const int fd = ::open((dir / kLockFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const auto pid = lock_holder(fd);
  ::close(fd);
  if (!pid) return std::nullopt;
  return in_use(dir, pid);
}

std::variant<OutDirLock, std::string> OutDirLock::acquire(const fs::path& dir, Named named) {
  auto held = std::make_shared<Held>();
  try {
    held->fd = open_shared_in(dir, kLockFile, SharedOpen::Lock);
  } catch (const WriteError& e) {
    return fmt::format("cannot lock {} '{}': {} ({})", named.noun, dir.string(), std::strerror(e.error), kLockFile);
  }
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (::fcntl(held->fd, F_SETLK, &fl) != 0) return in_use(dir, lock_holder(held->fd), named);
  const auto pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(held->fd, 0) == 0 && ::pwrite(held->fd, pid.data(), pid.size(), 0) < 0) {
    // the pid in the file is for people; the lock itself is what counts
  }
  return OutDirLock(std::move(held));
}

namespace {
bool holds_only_lock(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename() != kLockFile) return false;
  return !ec;
}
}  // namespace

std::variant<OutDir, std::string> OutDir::prepare(const fs::path& path) {
  std::error_code ec;
  const auto not_empty = [&] {
    return fmt::format(
        "--out-dir '{}' already holds files; jitbench never mixes or deletes earlier results: pass a new or empty "
        "directory",
        path.string());
  };
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) return fmt::format("--out-dir '{}' exists and is not a directory", path.string());
    if (!holds_only_lock(path)) {  // before the lock: nothing is added to a user's directory
      if (auto busy = OutDirLock::in_use_by_other(path)) return *busy;
      return not_empty();
    }
  }
  try {
    make_root_dir(path);
  } catch (const WriteError& e) {
    return fmt::format("cannot create --out-dir '{}': {}", path.string(), std::strerror(e.error));
  }
  const fs::path root = fs::absolute(path);
  auto lock = OutDirLock::acquire(root);
  if (auto* e = std::get_if<std::string>(&lock)) return *e;
  // Again under the lock: a run that started and finished a moment ago is seen here.
  if (!holds_only_lock(root)) return not_empty();
  return OutDir(root, std::get<OutDirLock>(std::move(lock)));
}

std::variant<OutDir, std::string> OutDir::reopen(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return fmt::format("'{}' is not a directory", path.string());
  const fs::path root = fs::absolute(path);
  auto lock = OutDirLock::acquire(root);
  if (auto* e = std::get_if<std::string>(&lock)) return *e;
  return OutDir(root, std::get<OutDirLock>(std::move(lock)));
}

fs::path OutDir::fresh_default(const fs::path& base) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "run-%Y%m%d-%H%M%S", &tm);
  fs::path p = base / stamp;
  for (int k = 2; fs::exists(p); ++k) p = base / fmt::format("{}-{}", stamp, k);
  return p;
}

void OutDir::write_text(const std::string& rel, const std::string& text) const { write_file_in(root_, rel, text); }

std::vector<FileEntry> OutDir::file_list() const {
  std::vector<fs::path> rels;
  for (const auto& e : fs::recursive_directory_iterator(root_)) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    auto rel = fs::relative(e.path(), root_);
    if (!excluded_from_index(rel)) rels.push_back(rel);
  }
  std::sort(rels.begin(), rels.end());
  std::vector<FileEntry> out;
  for (const auto& rel : rels) out.push_back({rel.string(), sha256_file(root_ / rel), fs::file_size(root_ / rel)});
  return out;
}

}  // namespace jitbench
