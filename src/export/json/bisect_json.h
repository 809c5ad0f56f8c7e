#pragma once
// OUT/bisect.json of `jitbench bisect` (schemas/jitbench.bisect.v5.schema.json).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/bisect_record.h"

namespace jitbench {
inline constexpr const char* kBisectSchema = "jitbench.bisect.v5";

struct BisectDocument {
  std::string package, good, bad, metric;
  std::vector<std::string> with, candidates;
  double threshold_pct = 0, alpha = 0;
  std::vector<BisectStep> steps;
  BisectResult result;
  std::optional<BisectGit> git;  // written only for bisect --git
};

// The document, stamped with the time it was written (finished_at).
nlohmann::json bisect_document_json(const BisectDocument& d, const std::string& finished_at);
// The document's text, stamped with the time it was written.
std::string bisect_json(const BisectDocument& d);
// The verdict as Markdown (what GITHUB_STEP_SUMMARY receives): a heading,
// the outcome in one line, and the table of the evidence that decided it
// (the confirmation of the boundary, or the ends).
std::string bisect_markdown(const BisectDocument& d);
}  // namespace jitbench
