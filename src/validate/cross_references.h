#pragma once
// What `jitbench verify` checks after the schemas and the sha256 values: that
// the documents of a run agree with each other, so that a file edited and
// re-hashed in the index is caught even without a signature — each index
// entry names its case file, whose id, status and medians are the index's;
// analysis.json lists exactly the index's cases and, when the run was written
// by this very build, is exactly what the case files give.
#include <filesystem>
#include <string>
#include <vector>

namespace jitbench {
struct CrossReferenceReport {
  std::vector<std::string> errors;  // "<path>: <what>"
  int checked = 0;                  // references checked
  bool analysis_recomputed = false;  // analysis.json was rebuilt from the case files and compared
  std::string analysis_note;         // why it was not, when it was not
};
// dir must already pass check_out_dir (schemas, sha256).
CrossReferenceReport check_cross_references(const std::filesystem::path& dir);
}  // namespace jitbench
