#pragma once
// The noise floor of `jitbench noise`: per case and metric, the smallest
// slowdown compare's gate confirms against an A/A comparison's samples (the
// same statistics as compare/significance.h). Pure.
#include <optional>
#include <span>
#include <vector>

#include "results/model.h"
#include "results/noise_record.h"

namespace jitbench::compare {

// The smallest s (percent) such that multiplying NEW's samples by 1 + s/100
// makes exceeds_regression_limit(…, limit 1) hold: p < alpha and the whole
// 95% CI of the NEW/BASE ratio above 1. Both ways round (either side may be
// BASE): the larger. None when the test cannot reach alpha with these sizes
// or no slowdown up to 100x is confirmed.
std::optional<double> smallest_detectable_pct(std::span<const double> a, std::span<const double> b, double alpha);

// Side A's and side B's results of the same cases, metric by metric (metric_samples).
std::vector<NoiseMetric> noise_metrics(const std::vector<CaseResult>& a, const std::vector<CaseResult>& b,
                                       double alpha);

}  // namespace jitbench::compare
