#include "stats/sequential.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace jitbench::stats {

namespace {
// P(Binomial(n, 1/2) <= k), from log-space terms (n in the thousands stays finite).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double sum = 0;
  const double nn = static_cast<double>(n);
  for (std::size_t i = 0; i <= k && i <= n; ++i) {
    const double ii = static_cast<double>(i);
    sum += std::exp(std::lgamma(nn + 1) - std::lgamma(ii + 1) - std::lgamma(nn - ii + 1) - nn * std::log(2.0));
  }
  return sum;
}
}  // namespace

std::optional<Interval> order_statistic_median_ci(std::span<const double> xs, double confidence) {
  const std::size_t n = xs.size();
  const double tail = (1.0 - confidence) / 2.0;
  // The largest k whose pair (x_(k), x_(n+1-k)) still covers with the confidence asked.
  std::size_t k = 0;
  while (k + 1 <= n / 2 && binomial_half_cdf(n, k) <= tail) ++k;
  if (k == 0) return std::nullopt;
  std::vector<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  return Interval{v[k - 1], v[n - k]};
}

bool median_interval_possible(std::size_t n, double confidence) {
  const std::vector<double> v(n, 0.0);
  return order_statistic_median_ci(v, confidence).has_value();
}

std::size_t min_values_for_interval(double confidence) {
  std::size_t n = 1;
  while (!median_interval_possible(n, confidence)) ++n;  // an interval exists for every n past 2 / (1 - c)
  return n;
}

std::optional<double> half_width_pct(std::span<const double> xs, double confidence) {
  const auto ci = order_statistic_median_ci(xs, confidence);
  const auto med = median(xs);
  if (!ci || !med || *med == 0.0) return std::nullopt;
  return std::max(*med - ci->low, ci->high - *med) / std::fabs(*med) * 100.0;
}

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::Continue: return "continue";
    case StopReason::TargetReached: return "target_reached";
    case StopReason::MaxRuns: return "max_runs";
    case StopReason::MaxTime: return "max_time";
  }
  return "continue";
}

StopReason should_stop(const StoppingRule& rule, std::span<const double> xs, double spent_s) {
  const int n = static_cast<int>(xs.size());
  if (n >= rule.min_runs) {
    const auto w = half_width_pct(xs, kStopConfidence);
    if (w && *w <= rule.target_pct) return StopReason::TargetReached;
  }
  if (n >= rule.max_runs) return StopReason::MaxRuns;
  if (n >= rule.min_runs && rule.max_time_s && spent_s >= *rule.max_time_s) return StopReason::MaxTime;
  return StopReason::Continue;
}

}  // namespace jitbench::stats
