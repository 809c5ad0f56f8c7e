#pragma once
// `jitbench bisect --git REPO`: the commits between --good and --bad, read
// with git (first parent, ancestry path), checked before anything is measured.
#include <string>
#include <vector>

namespace jitbench {

struct GitCommit {
  std::string sha;      // the full commit id
  std::string subject;  // the first line of its message
};

// The candidates, oldest first: --good, then every commit of
// `git rev-list --first-parent --ancestry-path GOOD..BAD` (BAD last). Throws
// UserError, one line, for a directory that is not a repository, a revision
// that names no commit, the same commit twice, or a --good that is not an
// ancestor of --bad.
std::vector<GitCommit> git_candidates(const std::string& repo, const std::string& good, const std::string& bad);

}  // namespace jitbench
