#include "compare/significance.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "stats/stats.h"

namespace jitbench::compare {

double min_possible_p(std::size_t n1, std::size_t n2) {
  // C(n1+n2, n1) in floating point (log-gamma keeps it finite).
  const double log_c = std::lgamma(double(n1 + n2 + 1)) - std::lgamma(double(n1 + 1)) - std::lgamma(double(n2 + 1));
  return std::min(1.0, 2.0 * std::exp(-log_c));
}

std::optional<MannWhitney> mann_whitney(std::span<const double> a, std::span<const double> b) {
  const std::size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return std::nullopt;
  // Ranks over the pooled sample, ties get their average rank.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.emplace_back(x, 0);
  for (double x : b) pooled.emplace_back(x, 1);
  std::sort(pooled.begin(), pooled.end());
  const std::size_t n = pooled.size();
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = double(j - i);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    const double avg = (double(i + 1) + double(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_a += avg;
    i = j;
  }
  MannWhitney r;
  r.u = rank_sum_a - double(n1) * double(n1 + 1) / 2.0;
  const double mean = double(n1) * double(n2) / 2.0;
  if (!ties && n1 * n2 <= 2500) {
    // Exact null distribution of U: count arrangements with the recurrence
    // f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u).
    const std::size_t umax = n1 * n2;
    std::vector<std::vector<double>> prev(n2 + 1, std::vector<double>(umax + 1, 0.0)), cur = prev;
    for (std::size_t j = 0; j <= n2; ++j) prev[j][0] = 1.0;  // i = 0
    for (std::size_t i = 1; i <= n1; ++i) {
      for (std::size_t j = 0; j <= n2; ++j) {
        std::fill(cur[j].begin(), cur[j].end(), 0.0);
        for (std::size_t u = 0; u <= i * j; ++u) {
          double v = (u >= j) ? prev[j][u - j] : 0.0;
          if (j > 0) v += cur[j - 1][u];
          cur[j][u] = v;
        }
      }
      std::swap(prev, cur);
    }
    const auto& f = prev[n2];
    double total = 0;
    for (double v : f) total += v;
    const double u_lo = std::min(r.u, double(umax) - r.u);
    double tail = 0;
    for (std::size_t u = 0; u <= umax && double(u) <= u_lo + 1e-9; ++u) tail += f[u];
    r.p_value = std::min(1.0, 2.0 * tail / total);
    r.exact = true;
    return r;
  }
  const double var = double(n1) * double(n2) / 12.0 * (double(n + 1) - tie_term / (double(n) * double(n - 1)));
  if (var <= 0) return r;  // every value equal: no evidence of a difference
  const double z = (std::abs(r.u - mean) - 0.5) / std::sqrt(var);  // continuity correction
  r.p_value = std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
  return r;
}

std::optional<double> hodges_lehmann(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return std::nullopt;
  std::vector<double> d;
  d.reserve(a.size() * b.size());
  for (double x : a)
    for (double y : b) d.push_back(y - x);
  return stats::median(d);
}

std::optional<RatioCi> ratio_of_medians(std::span<const double> a, std::span<const double> b, int resamples,
                                        std::uint64_t seed) {
  if (a.empty() || b.empty()) return std::nullopt;
  const auto ma = stats::median(a), mb = stats::median(b);
  if (!ma || !mb || *ma <= 0) return std::nullopt;
  std::mt19937_64 rng(seed);
  std::vector<double> ratios, ra(a.size()), rb(b.size());
  ratios.reserve(resamples);
  std::uniform_int_distribution<std::size_t> pa(0, a.size() - 1), pb(0, b.size() - 1);
  for (int k = 0; k < resamples; ++k) {
    for (auto& x : ra) x = a[pa(rng)];
    for (auto& x : rb) x = b[pb(rng)];
    const double m = *stats::median(ra);
    if (m > 0) ratios.push_back(*stats::median(rb) / m);
  }
  RatioCi r;
  r.ratio = *mb / *ma;
  r.lo = stats::percentile(ratios, 2.5).value_or(r.ratio);
  r.hi = stats::percentile(ratios, 97.5).value_or(r.ratio);
  return r;
}

bool exceeds_regression_limit(bool testable, double p, double alpha, double ratio_ci_low, double limit) {
  return testable && p < alpha && ratio_ci_low > limit;
}

}  // namespace jitbench::compare
