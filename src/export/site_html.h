#pragma once
// A publish site's index.html: the snapshots newest first with their reports
// linked, the steps compare's gate flags between consecutive snapshots of one
// machine ("regressions since the last snapshot" first), and per case every
// metric over the snapshots, one series per machine and environment, each
// point with its interval. Static HTML, no script.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "compare/history.h"
#include "results/read.h"

namespace jitbench {

struct SitePage {
  std::vector<RegistryEntry> entries;   // the registry's entries, oldest first
  std::vector<bool> has_report;         // per entry: report/report.html was written
  compare::History history;             // over the same snapshots, in the same order
  std::map<std::string, std::string> svgs;  // case id -> its history figure (drawn when matplotlib is there)
  double gate_pct = 10, alpha = 0.05;
  std::string generated_at;
};

std::string site_html(const SitePage& page);
// The figure script's input: per case, one panel per metric, one line per series.
nlohmann::json site_figure_data(const SitePage& page);
// A metric's value as the site prints it (seconds, or MiB for peak RSS).
std::string site_value(const std::string& metric, double v);
}  // namespace jitbench
