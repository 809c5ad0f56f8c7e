#include "compare/noise.h"

#include <algorithm>
#include <cmath>

#include "compare/compare.h"
#include "compare/significance.h"

namespace jitbench::compare {
namespace {
// One way round: NEW = b scaled by f, BASE = a. The bootstrap CI scales with
// f (medians do, and the resamples are the same), so it is computed once.
std::optional<double> detectable_one_way(std::span<const double> a, std::span<const double> b, double alpha) {
  const auto ci = ratio_of_medians(a, b);
  if (!ci || ci->lo <= 0 || min_possible_p(a.size(), b.size()) > alpha) return std::nullopt;
  const auto confirmed = [&](double f) {
    std::vector<double> scaled(b.begin(), b.end());
    for (auto& x : scaled) x *= f;
    const auto mw = mann_whitney(a, scaled);
    return mw && exceeds_regression_limit(true, mw->p_value, alpha, ci->lo * f, 1.0);
  };
  double lo = 0, hi = std::log(100.0);  // log f: confirmed at hi, not at lo
  if (!confirmed(std::exp(hi))) return std::nullopt;
  if (confirmed(1.0)) return 0.0;  // the A/A itself already "regressed": the floor is no shift at all
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    (confirmed(std::exp(mid)) ? hi : lo) = mid;
  }
  return (std::exp(hi) - 1) * 100;
}
}  // namespace

std::optional<double> smallest_detectable_pct(std::span<const double> a, std::span<const double> b, double alpha) {
  const auto ab = detectable_one_way(a, b, alpha), ba = detectable_one_way(b, a, alpha);
  if (!ab || !ba) return std::nullopt;
  return std::max(*ab, *ba);
}

FloorCheck check_floor(const NoiseMetric* m, double threshold_pct) {
  if (!m) return FloorCheck::NotMeasured;
  if (!m->testable) return FloorCheck::Untestable;
  if (!m->detectable_pct) return FloorCheck::Below;
  return 1 + threshold_pct / 100 < 1 + *m->detectable_pct / 100 ? FloorCheck::Below : FloorCheck::Holds;
}

std::vector<NoiseMetric> noise_metrics(const std::vector<CaseResult>& a, const std::vector<CaseResult>& b,
                                       double alpha) {
  std::vector<NoiseMetric> out;
  for (const auto& [ca, cb] : paired_cases(a, b)) {
    const auto sa = metric_samples(*ca), sb = metric_samples(*cb);
    for (const auto& [metric, xa] : sa) {
      const auto it = sb.find(metric);
      // The floor is the test's: instruction counts are judged by their spread, with no test.
      if (it == sb.end() || metric_info(metric).rule != MetricRule::MannWhitney) continue;
      const auto row = metric_row(ca->c.id, metric, xa, it->second, alpha);
      if (!row) continue;
      NoiseMetric m{ca->c.id, metric, row->n_base, row->n_new, row->base_median, row->new_median, row->ratio,
                    row->lo, row->hi, row->p, row->testable, smallest_detectable_pct(xa, it->second, alpha)};
      out.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace jitbench::compare
