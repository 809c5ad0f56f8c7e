#include "compare/runs_needed.h"

#include <algorithm>
#include <cmath>

namespace jitbench::compare {

double normal_quantile(double p) {
  // Bisection on the CDF (erfc is exact to a few ulps): 100 halvings reach a double's precision.
  double lo = -40, hi = 40;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

namespace {
struct LogMoments {
  double mean = 0, var = 0;
};
LogMoments log_moments(const std::vector<double>& xs) {
  LogMoments m;
  for (const double x : xs) m.mean += std::log(x);
  m.mean /= static_cast<double>(xs.size());
  for (const double x : xs) m.var += (std::log(x) - m.mean) * (std::log(x) - m.mean);
  m.var /= static_cast<double>(xs.size() - 1);
  return m;
}

// The fewest runs a side for which Mann-Whitney's exact two-sided p can reach
// alpha at all (its least p is 2 / C(2n, n)).
long least_testable(double alpha) {
  for (long n = 1;; ++n) {
    double c = 1;
    for (long k = 1; k <= n; ++k) c = c * static_cast<double>(n + k) / static_cast<double>(k);
    if (2 / c < alpha) return n;
  }
}
}  // namespace

RunsNeeded runs_needed(const std::vector<double>& base, const std::vector<double>& next, double limit, double alpha) {
  const long n = static_cast<long>(std::min(base.size(), next.size()));
  const auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0 && std::isfinite(x); });
  };
  RunsNeeded out;
  if (n < 2 || !positive(base) || !positive(next) || !(limit > 0)) {  // no spread to estimate from yet
    out.more = std::max<long>(n, 3);
    return out;
  }
  const auto b = log_moments(base), x = log_moments(next);
  const double s2 = (b.var + x.var) / 2;
  const double gap = std::abs(x.mean - b.mean - std::log(limit));
  const double z = normal_quantile(1 - alpha / 2) + normal_quantile(0.80);
  const double need = gap > 0 ? std::ceil(2 * s2 * z * z / (gap * gap)) : HUGE_VAL;
  if (!(need <= static_cast<double>(kMaxRunsPerSide))) {
    out.decidable = false;
    out.estimate = std::isfinite(need) ? static_cast<long>(std::min(need, 1e15)) : 0;
    return out;
  }
  out.estimate = std::max({static_cast<long>(need), least_testable(alpha), n + 1});
  out.more = std::clamp(out.estimate - n, 1L, (kMaxGrowth - 1) * n);
  return out;
}

}  // namespace jitbench::compare
