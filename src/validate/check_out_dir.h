#pragma once
// `jitbench validate DIR`: every artifact against its schema, every sha256 the
// index and the ML-suite index record, and no file the index does not list.
#include <filesystem>
#include <string>
#include <vector>

namespace jitbench {
// What kind of problem one line of a report is (for --resume, which accepts
// some of them in a run killed outright: artifacts/out_dir.h, remade_on_resume).
enum class Problem {
  Other,
  Unlisted,     // a regular file the index does not list
  HashDiffers,  // a listed file whose sha256 is not the index's
  Unsafe,       // a symbolic link, FIFO, socket or device where jitbench writes only files and directories
};
struct ValidationReport {
  std::vector<std::string> errors;  // one line each, "<path>: <what>"
  std::vector<std::string> unlisted;  // files present but not in the index (each also an error)
  struct Finding {
    std::string path;  // relative to the out dir ("" when the line names none)
    Problem kind = Problem::Other;
  };
  std::vector<Finding> findings;  // one per line of errors, in the same order
  int files_hashed = 0;
  int documents_validated = 0;
  void add(std::string path, Problem kind, std::string line) {
    errors.push_back(std::move(line));
    findings.push_back({std::move(path), kind});
  }
};
ValidationReport check_out_dir(const std::filesystem::path& dir);

// A published snapshot's run/ (snapshot_index.json one level up, written by
// publish): the report publish drew there, file by file against the sha256 the
// snapshot index records (none missing, none added), and the snapshot index
// against the site's registry.json when the site is there. Empty for a
// directory that is not a published snapshot's run; `checked` counts the files.
std::vector<std::string> check_published_report(const std::filesystem::path& run_dir, int& checked);
}  // namespace jitbench
