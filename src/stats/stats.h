#pragma once
// Pure statistics over samples. Every function defines its n = 0 and n = 1
// behaviour; none of them mutate their input.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace jitbench::stats {

// Percentile p in [0, 100] by linear interpolation between closest ranks
// (numpy's default, and what the ML-suite contract prescribes).
// n = 0 -> nullopt; n = 1 -> the single value.
std::optional<double> percentile(std::span<const double> xs, double p);
std::optional<double> median(std::span<const double> xs);
std::optional<double> min(std::span<const double> xs);
std::optional<double> max(std::span<const double> xs);
std::optional<double> mean(std::span<const double> xs);
// Sample standard deviation (n - 1), two-pass. n < 2 -> nullopt.
std::optional<double> stdev(std::span<const double> xs);
// Median absolute deviation from the median (unscaled). n = 0 -> nullopt.
std::optional<double> mad(std::span<const double> xs);
// stdev / mean; nullopt when either is missing or the mean is 0.
std::optional<double> coefficient_of_variation(std::span<const double> xs);

struct Interval {
  double low = 0;
  double high = 0;
};

// Percentile-bootstrap confidence interval of the median. Deterministic for a
// given seed so that re-running the statistics on the same samples reproduces
// the artifact. n = 0 -> nullopt; n = 1 -> [x, x].
std::optional<Interval> bootstrap_median_ci(std::span<const double> xs, double confidence = 0.95,
                                            int resamples = 2000, std::uint64_t seed = 0x6a6974);

// Indices of outliers by the modified z-score |0.6745 (x - median) / MAD| > 3.5
// (Iglewicz and Hoaglin). MAD = 0 -> no outliers are flagged: with most samples
// identical there is no scale to judge by.
std::vector<std::size_t> outliers_modified_z(std::span<const double> xs, double threshold = 3.5);

// The summary written for every distribution in jitbench's own artifacts.
struct Summary {
  std::size_t n = 0;
  double min = 0, median = 0, p95 = 0, max = 0, mean = 0;
  std::optional<double> stdev, cv;
  double mad = 0;
  Interval median_ci95;
  std::size_t n_outliers = 0;
};
std::optional<Summary> summarize(std::span<const double> xs);

}  // namespace jitbench::stats
