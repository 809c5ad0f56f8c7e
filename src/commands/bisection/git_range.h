#pragma once
// `jitbench bisect --git REPO`: the commits between --good and --bad, read
// with git (first parent), checked before anything is measured.
#include <string>
#include <vector>

namespace jitbench {

struct GitCommit {
  std::string sha;      // the full commit id
  std::string subject;  // the first line of its message
};

// The candidates, oldest first: the first-parent line of --bad
// (`git log --first-parent BAD`) from --good, which must be on it, to --bad.
// Throws UserError, one line, for a directory that is not a repository's top,
// a revision that names no commit, the same commit twice, a --good that is not
// an ancestor of --bad, or one on a merged branch rather than that line.
std::vector<GitCommit> git_candidates(const std::string& repo, const std::string& good, const std::string& bad);

// A commit's environment name: the package's default name cut to 51
// characters, then '-' and the commit's first 12 hex digits (64 at most, so
// a long package name never cuts the commit off).
std::string commit_environment_name(const std::string& package, const std::string& sha);

}  // namespace jitbench
