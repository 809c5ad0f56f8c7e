#include "compare/gate_verdict.h"

#include <algorithm>

namespace jitbench::compare {

const char* to_string(RowGate g) {
  switch (g) {
    case RowGate::Regression: return "regression";
    case RowGate::NotJudged: return "not judged";
    case RowGate::Ok: return "ok";
    case RowGate::Cleared: return "cleared by re-measurement";
    case RowGate::Confirmed: return "confirmed by re-measurement";
    case RowGate::LeftToCounts: return "left to instruction counts";
    case RowGate::None: break;
  }
  return "";
}

bool fails(RowGate g) { return g == RowGate::Regression || g == RowGate::Confirmed; }

bool needs_remeasure(const MetricRow& r, double pct, double alpha) {
  if (r.rule == MetricRule::Spread) return false;
  if (gate(r, 1.0 + pct / 100.0, alpha) != Gate::Regression) return false;
  return !r.base_interference.all_quiet() || !r.new_interference.all_quiet();
}

std::vector<std::string> cases_to_remeasure(const Comparison& c, double pct, double alpha) {
  std::vector<std::string> out;
  for (const auto& r : c.rows) {
    const auto& id = r.base_case_id.empty() ? r.case_id : r.base_case_id;
    if (needs_remeasure(r, pct, alpha) && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

namespace {
// Whether a row's own instruction count (compare::count_of: the same phase)
// was compared and decided against the limit: only then may it stand for the row.
bool decided_by_its_count(const Comparison& c, const MetricRow& row, double limit, double alpha) {
  const auto counted = count_of(row.metric);
  if (counted.empty()) return false;
  return std::any_of(c.rows.begin(), c.rows.end(), [&](const MetricRow& r) {
    return r.case_id == row.case_id && r.metric == counted && gate(r, limit, alpha) != Gate::Undecided;
  });
}

const MetricRow* find_gated_row(const Comparison& c, const MetricRow& like) {
  for (const auto& r : c.rows)
    if (r.case_id == like.case_id && r.metric == like.metric) return &r;
  return nullptr;
}

RowGate as_measured(const MetricRow& r, double limit, double alpha) {
  switch (gate(r, limit, alpha)) {
    case Gate::Regression: return RowGate::Regression;
    case Gate::Clear: return RowGate::Ok;
    case Gate::Undecided: break;
  }
  return RowGate::NotJudged;
}

// A row that needed a re-measurement: judged by it; without one (not
// re-measured, or a re-measurement that gave this row no samples: nothing
// clears it) by its case's counts, or as measured.
RowGate judged_again(const Comparison& c, const GatedRow& g, double limit, double alpha) {
  if (g.remeasured && g.remeasured->testable) switch (gate(*g.remeasured, limit, alpha)) {
      case Gate::Regression: return RowGate::Confirmed;
      case Gate::Clear: return RowGate::Cleared;
      case Gate::Undecided: return RowGate::NotJudged;  // re-measured, and neither confirmed nor cleared
    }
  return decided_by_its_count(c, g.row, limit, alpha) ? RowGate::LeftToCounts : RowGate::Regression;
}
}  // namespace

GateVerdict gate_rows(const Comparison& c, std::optional<double> pct, double alpha,
                      const std::optional<Comparison>& again, bool remeasuring) {
  GateVerdict v;
  v.threshold_pct = pct;
  v.alpha = alpha;
  v.worsened = c.worsened;
  v.removed = c.removed;
  v.added = c.added;
  v.not_compared = c.not_compared;
  for (const auto& r : c.rows) {
    GatedRow g{r, RowGate::None, std::nullopt};
    if (again)
      if (const auto* x = find_gated_row(*again, r)) g.remeasured = *x;
    if (pct) {
      const double limit = 1.0 + *pct / 100.0;
      g.gate = remeasuring && needs_remeasure(r, *pct, alpha) ? judged_again(c, g, limit, alpha)
                                               : as_measured(r, limit, alpha);
    }
    v.rows.push_back(std::move(g));
  }
  const bool failed = std::any_of(v.rows.begin(), v.rows.end(), [](const GatedRow& g) { return fails(g.gate); });
  v.exit_code = pct && (failed || !c.worsened.empty() || !c.removed.empty()) ? 1 : 0;
  return v;
}

}  // namespace jitbench::compare
