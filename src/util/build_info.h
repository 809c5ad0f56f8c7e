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
// The source tree this binary was built from (where an uninstalled jitbench finds
// its worker, figures and .venv). Kept out of every other file's flags, so that
// two checkouts of one commit compile alike (ccache shares their objects).
const char* source_dir();
// jitbench's version (python/jitbench/_version.py, the one place it is written):
// here rather than a flag, so that a version bump recompiles one file.
const char* jitbench_version();
}  // namespace jitbench
