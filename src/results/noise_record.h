#pragma once
// What `jitbench noise` found (D/noise.json, schemas/jitbench.noise.v1):
// per case and metric, an A/A comparison of two interleaved measurements of
// the same case, and the smallest regression compare's gate can confirm on
// this machine with these counts (docs/noise.md, "Noise floor").
#include <optional>
#include <string>
#include <vector>

namespace jitbench {

struct NoiseMetric {
  std::string case_id, metric;
  std::size_t n_a = 0, n_b = 0;
  double median_a = 0, median_b = 0;
  double ratio = 0, lo = 0, hi = 0, p = 1;  // B/A, its 95% bootstrap CI, Mann-Whitney U
  bool testable = false;                     // the test can reach alpha with these sizes
  std::optional<double> detectable_pct;      // none: nothing is detectable (too few runs, or beyond 100x)
  bool operator==(const NoiseMetric&) const = default;
};

struct NoiseFloor {
  double alpha = 0.05;
  std::string run_a, run_b;        // the two sides' out dirs, relative to the noise dir
  std::vector<std::string> command;
  std::string started_at, finished_at;  // "" when deterministic
  std::vector<NoiseMetric> metrics;
  // The floor of one case's metric; none when not measured or nothing detectable.
  const NoiseMetric* find(const std::string& case_id, const std::string& metric) const {
    for (const auto& m : metrics)
      if (m.case_id == case_id && m.metric == metric) return &m;
    return nullptr;
  }
};

}  // namespace jitbench
