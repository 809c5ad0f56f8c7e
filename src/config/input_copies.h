#pragma once
// A resumed run reads its inputs (the suite file, user workload files) from
// the copies its out dir keeps (inputs/, listed in the index), never from
// whatever the original paths hold when it is resumed, nor from a file of the
// same name in another directory. The originals are named as they were given
// and resolved against the directory the run was started from.
#include <filesystem>
#include <map>
#include <string>

namespace jitbench {

// From now on, a path whose absolute form (relative ones taken from `cwd`) is
// a key of source_to_copy is read from its copy. An empty map ends this.
void use_input_copies(const std::filesystem::path& cwd, std::map<std::string, std::string> source_to_copy);

// The file to read for `path`: its copy when one is in use, else path itself.
std::string input_path(const std::string& path);

}  // namespace jitbench
