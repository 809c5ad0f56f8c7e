#pragma once
// The run's output directory: held under an exclusive lock for as long as a
// command writes into it, refuses to mix with earlier results, writes every
// file atomically and never through a link (util/fs.h), and builds the index
// (jitbench.index.v1) with the sha256 of every file it holds.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "results/run_info.h"

namespace jitbench {

// An exclusive fcntl lock on DIR/.jitbench.lock, released when the last copy
// is destroyed or the process ends (however it ends). The file stays; it is
// never listed in the index.
class OutDirLock {
 public:
  // What the locked directory is to the user, for the errors: its name and
  // how to go elsewhere (an out dir by default; publish's site says --to).
  struct Named {
    const char* noun;
    const char* elsewhere;
  };
  static constexpr Named kOutDir{"out dir", "pass another --out-dir"};
  // The lock, or a one-line error naming the pid that holds it.
  static std::variant<OutDirLock, std::string> acquire(const std::filesystem::path& dir, Named named = kOutDir);
  // The "in use" error when another process holds dir's lock now; creates nothing.
  static std::optional<std::string> in_use_by_other(const std::filesystem::path& dir);

 private:
  struct Held;
  explicit OutDirLock(std::shared_ptr<Held> h) : held_(std::move(h)) {}
  std::shared_ptr<Held> held_;
};

class OutDir {
 public:
  // Creates path, or accepts an existing empty directory, and locks it;
  // anything else is an error line (jitbench never mixes with, or deletes,
  // earlier results, and two runs never share an out dir).
  static std::variant<OutDir, std::string> prepare(const std::filesystem::path& path);
  // An existing out dir, locked, for a command that adds to it (report).
  static std::variant<OutDir, std::string> reopen(const std::filesystem::path& path);
  // A fresh directory name under base: base/run-YYYYmmdd-HHMMSS[-k].
  static std::filesystem::path fresh_default(const std::filesystem::path& base);

  const std::filesystem::path& root() const { return root_; }
  // Throws WriteError (util/fs.h) when the file cannot be written.
  void write_text(const std::string& rel, const std::string& text) const;

  // Every regular file below root except the index itself and compile caches,
  // sorted by path.
  std::vector<FileEntry> file_list() const;

 private:
  OutDir(std::filesystem::path root, OutDirLock lock) : root_(std::move(root)), lock_(std::move(lock)) {}
  std::filesystem::path root_;
  OutDirLock lock_;
};

inline constexpr const char* kIndexFile = "index.json";
inline constexpr const char* kLockFile = ".jitbench.lock";
// `jitbench sign`: the index's signature, and a replica's report's (ssh-keygen -Y sign).
inline constexpr const char* kIndexSignatureFile = "index.json.sig";
inline constexpr const char* kReplicationSignatureFile = "replication/replication.json.sig";
// Paths the index never lists: itself, the lock, the signatures, the compile
// caches, the report's derived views and temp files.
bool excluded_from_index(const std::filesystem::path& rel);

// What a run killed outright (SIGKILL, a lost node) may leave that its last
// index does not describe, all of which `run --resume` makes again: the files
// of the case it was measuring (CaseFile: logs/<case>/..., references/<case>.pickle,
// cases/<case>.json and ml/cases/<case>.json, made before the index that would
// list them; *case_id is set), and the documents derived from every case
// (Derived: analysis.json, summary.md, ml/ml_suite.json, ml/README_snippet_ml.md,
// rewritten after each case just before the index).
enum class Remade { No, CaseFile, Derived };
Remade remade_on_resume(const std::filesystem::path& rel, std::string* case_id);

}  // namespace jitbench
