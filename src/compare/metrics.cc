#include "compare/metrics.h"

#include "compare/compare.h"
#include "compare/significance.h"

namespace jitbench::compare {

namespace {
constexpr std::string_view kPrefix = "instructions_";
}

MetricInfo metric_info(std::string_view metric) {
  if (metric.starts_with(kPrefix))
    return {MetricKind::Instructions, MetricRule::Spread, "more instructions", "fewer instructions", "instructions"};
  if (metric == "peak_rss_kib") return {MetricKind::Memory, MetricRule::MannWhitney, "larger", "smaller", "KiB"};
  return {};
}

std::string_view to_string(MetricRule r) { return r == MetricRule::Spread ? "spread" : "mann_whitney"; }

std::string instructions_metric(const std::string& phase) { return std::string(kPrefix) + phase; }

std::string instructions_phase(std::string_view metric) {
  return metric.starts_with(kPrefix) ? std::string(metric.substr(kPrefix.size())) : std::string();
}

Gate gate(const MetricRow& r, double limit, double alpha) {
  if (r.rule == MetricRule::Spread) {
    if (!r.testable) return Gate::Undecided;
    if (r.lo > limit) return Gate::Regression;
    return r.hi <= limit ? Gate::Clear : Gate::Undecided;
  }
  if (exceeds_regression_limit(r.testable, r.p, alpha, r.lo, limit)) return Gate::Regression;
  return r.testable && r.hi <= limit ? Gate::Clear : Gate::Undecided;
}

}  // namespace jitbench::compare
