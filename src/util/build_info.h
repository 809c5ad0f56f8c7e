#pragma once
// The commit this jitbench was built from (cmake/build_info.cmake writes the
// definition at every build). Empty strings when it was not built from a git
// checkout (a source tarball): the run then says "unknown", never a guess.
#include <string>

namespace jitbench {
struct BuildInfo {
  std::string describe;    // git describe --always --dirty
  std::string sha;         // the full commit
  std::string ref;         // the branch ("HEAD" when detached)
  std::string repository;  // remote.origin.url, else file://<source dir>
  bool dirty = false;      // built with uncommitted changes
};
const BuildInfo& build_info();
}  // namespace jitbench
