#include "compare/replication.h"

#include "compare/compare.h"
#include "compare/significance.h"

namespace jitbench::compare {
namespace {
bool verified_run(const RunRecord& r) {
  const auto& w = r.worker;
  return w.verify.present && w.verify.ok && (!w.verify_first.present || w.verify_first.ok);
}

std::string verdict_of(const MetricRow& r, double tolerance_pct) {
  if (!r.testable) return "not testable";
  const double limit = 1.0 + tolerance_pct / 100.0;
  if (r.significant && r.lo > limit) return "slower";
  if (r.significant && r.hi < 1.0 / limit) return "faster";
  return "consistent";
}
}  // namespace

CaseAnswer case_answer(const CaseResult& c) {
  CaseAnswer a;
  a.case_id = c.c.id;
  const bool phase_doubt_only = c.status == Status::Warn && timings_comparable(c);
  a.status = phase_doubt_only ? "ok" : std::string(to_string(c.status));
  a.reason = phase_doubt_only ? "" : to_string(Reason{c.reason.code, ""});
  for (const auto* runs : {&c.cold, &c.warm})
    for (const auto& r : *runs) {
      ++a.runs;
      if (verified_run(r)) ++a.runs_verified;
    }
  return a;
}

TimingReplication replicate_timings(const std::vector<CaseResult>& original, const std::vector<CaseResult>& replica,
                                    double tolerance_pct, double alpha) {
  TimingReplication out;
  for (const auto& [a, b] : paired_cases(original, replica)) {
    const auto xa = metric_samples(*a), xb = metric_samples(*b);
    for (const auto& [metric, va] : xa) {
      const auto it = xb.find(metric);
      if (it == xb.end() || metric_info(metric).kind == MetricKind::Instructions) continue;  // timings only
      const auto row = metric_row(a->c.id, metric, va, it->second, alpha);
      if (!row) continue;
      ReplicaRow r{a->c.id, metric, verdict_of(*row, tolerance_pct), row->n_base, row->n_new, row->base_median,
                   row->new_median, row->ratio, row->lo, row->hi, row->p};
      if (r.verdict != "not testable") ++out.tested;
      if (r.verdict == "slower" || r.verdict == "faster") ++out.differ;
      out.rows.push_back(std::move(r));
    }
  }
  if (out.tested == 0) {
    int n = 1;
    while (n < 100000 && min_possible_p(std::size_t(n), std::size_t(n)) > alpha) ++n;
    out.runs_needed = n;
  }
  return out;
}

}  // namespace jitbench::compare
