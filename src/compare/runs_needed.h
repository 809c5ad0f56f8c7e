#pragma once
// How many runs per side would decide whether NEW/BASE lies above or below a
// limit (bisect's gate: a regression beyond --threshold, or clear of it), when
// the runs so far do not. The estimate is the runs per side with which a
// two-sided test at alpha would decide it with 80% probability if the ratio
// were the one observed (the power formula on the log samples:
// n = 2 s^2 (z_{1-alpha/2} + z_{0.80})^2 / gap^2, s the pooled standard
// deviation of the log samples, gap |log ratio - log limit|). The spread comes
// from the samples, not from the width of a 95% interval, which a bootstrap
// of a few runs understates; and since the gap observed is itself uncertain,
// one round asks for at most kMaxGrowth times the runs so far: following the
// advice once never asks for more than kMaxGrowth times again. Past
// kMaxRunsPerSide the step cannot be decided at this noise.
#include <vector>

namespace jitbench::compare {

inline constexpr long kMaxRunsPerSide = 1000;
inline constexpr long kMaxGrowth = 4;

struct RunsNeeded {
  long more = 0;            // runs per side to add in this round (>= 1)
  long estimate = 0;        // runs per side the estimate says would decide it (0: no estimate, too few runs)
  bool decidable = true;    // false: the estimate exceeds kMaxRunsPerSide (or the ratio sits on the limit)
};

RunsNeeded runs_needed(const std::vector<double>& base, const std::vector<double>& next, double limit, double alpha);

// The standard normal quantile (inverse CDF) of p in (0, 1).
double normal_quantile(double p);

}  // namespace jitbench::compare
