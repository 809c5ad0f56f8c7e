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

// A published snapshot's run/ (snapshot_index.json one level up, written by
// publish): the report publish drew there, file by file against the sha256 the
// snapshot index records (none missing, none added), and the snapshot index
// against the site's registry.json when the site is there. Empty for a
// directory that is not a published snapshot's run; `checked` counts the files.
std::vector<std::string> check_published_report(const std::filesystem::path& run_dir, int& checked);
}  // namespace jitbench
