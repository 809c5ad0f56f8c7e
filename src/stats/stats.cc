#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace jitbench::stats {
namespace {
std::vector<double> sorted(std::span<const double> xs) {
  std::vector<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  return v;
}

double percentile_sorted(const std::vector<double>& v, double p) {
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}
}  // namespace

std::optional<double> percentile(std::span<const double> xs, double p) {
  if (xs.empty()) return std::nullopt;
  return percentile_sorted(sorted(xs), p);
}
std::optional<double> median(std::span<const double> xs) { return percentile(xs, 50.0); }

std::optional<double> min(std::span<const double> xs) {
  if (xs.empty()) return std::nullopt;
  return *std::min_element(xs.begin(), xs.end());
}
std::optional<double> max(std::span<const double> xs) {
  if (xs.empty()) return std::nullopt;
  return *std::max_element(xs.begin(), xs.end());
}
std::optional<double> mean(std::span<const double> xs) {
  if (xs.empty()) return std::nullopt;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}
std::optional<double> stdev(std::span<const double> xs) {
  if (xs.size() < 2) return std::nullopt;
  const double m = *mean(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}
std::optional<double> mad(std::span<const double> xs) {
  auto med = median(xs);
  if (!med) return std::nullopt;
  std::vector<double> dev;
  dev.reserve(xs.size());
  for (double x : xs) dev.push_back(std::fabs(x - *med));
  return median(dev);
}
std::optional<double> coefficient_of_variation(std::span<const double> xs) {
  auto m = mean(xs);
  auto s = stdev(xs);
  if (!m || !s || *m == 0.0) return std::nullopt;
  return *s / *m;
}

std::optional<Interval> bootstrap_median_ci(std::span<const double> xs, double confidence,
                                            int resamples, std::uint64_t seed) {
  if (xs.empty()) return std::nullopt;
  if (xs.size() == 1) return Interval{xs[0], xs[0]};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, xs.size() - 1);
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> sample(xs.size());
  for (int r = 0; r < resamples; ++r) {
    for (auto& s : sample) s = xs[pick(rng)];
    medians.push_back(*median(sample));
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1.0 - confidence) / 2.0 * 100.0;
  return Interval{percentile_sorted(medians, tail), percentile_sorted(medians, 100.0 - tail)};
}

std::vector<std::size_t> outliers_modified_z(std::span<const double> xs, double threshold) {
  std::vector<std::size_t> out;
  auto med = median(xs);
  auto m = mad(xs);
  if (!med || !m || *m == 0.0) return out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (std::fabs(0.6745 * (xs[i] - *med) / *m) > threshold) out.push_back(i);
  }
  return out;
}

std::optional<Summary> summarize(std::span<const double> xs) {
  if (xs.empty()) return std::nullopt;
  Summary s;
  s.n = xs.size();
  s.min = *min(xs);
  s.max = *max(xs);
  s.median = *median(xs);
  s.p95 = *percentile(xs, 95.0);
  s.mean = *mean(xs);
  s.stdev = stdev(xs);
  s.cv = coefficient_of_variation(xs);
  s.mad = *mad(xs);
  s.median_ci95 = *bootstrap_median_ci(xs);
  s.n_outliers = outliers_modified_z(xs).size();
  return s;
}

}  // namespace jitbench::stats
