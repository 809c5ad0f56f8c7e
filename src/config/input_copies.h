#pragma once
// A resumed run reads its inputs (the suite file, user workload files) from
// the copies its out dir keeps (inputs/, listed in the index), never from
// whatever the original paths hold when it is resumed, nor from a file of the
// same name in another directory. The originals are named as they were given
// and resolved against the directory the run was started from. A value that
// travels with the plan (plan/planned_run.h) to whoever reads an input.
#include <filesystem>
#include <map>
#include <string>

namespace jitbench {

struct InputCopies {
  std::filesystem::path cwd;                      // the directory the run was started from
  std::map<std::string, std::string> by_source;  // absolute, normal source path -> its copy; empty: none
  // The file to read for `path` (relative ones taken from cwd): its copy when
  // it has one, else path itself.
  std::string path(const std::string& path) const;
};

}  // namespace jitbench
