#pragma once
// `jitbench validate DIR`: every artifact against its schema, every sha256 the
// index and the ML-suite index record, and no file the index does not list.
#include <filesystem>
#include <string>
#include <vector>

namespace jitbench {
struct ValidationReport {
  std::vector<std::string> errors;  // one line each, "<path>: <what>"
  std::vector<std::string> unlisted;  // files present but not in the index (each also an error)
  int files_hashed = 0;
  int documents_validated = 0;
};
ValidationReport check_out_dir(const std::filesystem::path& dir);
}  // namespace jitbench
