#pragma once
// What a publish site's pages show, for their templates
// (src/report/figures/jitbench_figures/templates/site_*.html): the snapshots
// with their files, the steps compare's gate flags between consecutive
// snapshots of one machine ("regressions since the last snapshot" first), and
// per case every metric over the snapshots, one series per machine and
// software environment, each point with its interval. The figures package
// renders the index, one page per case and the charts' script from it.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "compare/history.h"
#include "results/read.h"

namespace jitbench {

struct SitePage {
  std::vector<RegistryEntry> entries;   // the registry's entries, oldest first
  std::vector<bool> has_report;         // per entry: report/report.html was written
  compare::History history;             // over the same snapshots, in the same order
  double gate_pct = 10, alpha = 0.05;
  std::string generated_at;
};

// {"site": {...}}: the figure script's input for the site's pages.
nlohmann::json site_json(const SitePage& page);
}  // namespace jitbench
