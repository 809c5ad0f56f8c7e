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

// A threshold (compare's --fail-on-regression, bisect's --threshold, percent)
// against one case's and metric's noise floor: the one rule compare's warning,
// compare --strict's refusal and bisect's use. The gate confirms a regression
// when the NEW/BASE ratio's 95% CI lies above 1 + PCT/100; the floor is the
// smallest factor 1 + floor/100 that lifts a slowdown's CI above 1 on this
// machine at all. So PCT is Below when 1 + PCT/100 < 1 + floor/100 (a
// slowdown between the two passes the gate unconfirmed), or when nothing up
// to 100x is detectable although the A/A could be tested. NotMeasured: the
// noise run lacks the case or metric; Untestable: its A/A had too few
// processes for the test to reach alpha at all, so no floor was measured.
// Neither of those two is Below: there is nothing to hold the threshold to.
enum class FloorCheck { NotMeasured, Untestable, Holds, Below };
FloorCheck check_floor(const NoiseMetric* m, double threshold_pct);

// Side A's and side B's results of the same cases, metric by metric (metric_samples).
std::vector<NoiseMetric> noise_metrics(const std::vector<CaseResult>& a, const std::vector<CaseResult>& b,
                                       double alpha);

}  // namespace jitbench::compare
