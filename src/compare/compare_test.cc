#include "compare/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace jitbench::compare {
namespace {

RunRecord cold_run(double ttfr, Status status, bool interfered) {
  RunRecord r;
  r.status = status;
  r.import_s = ttfr / 2;
  r.setup_s = 0.0;
  r.first_call_s = ttfr / 2;
  r.total_s = ttfr;
  r.wall_s = ttfr;
  Interference x;
  x.interfered = interfered;
  x.n_cpus = 2;
  r.interference = x;
  return r;
}

CaseResult with_runs(std::vector<RunRecord> runs) {
  CaseResult c;
  c.c = make_case("numpy", "matmul", 8, "f32");
  c.status = Status::Ok;
  c.cold = std::move(runs);
  return c;
}

TEST(Compare, TheInterferenceColumnCountsOnlyTheRunsBehindTheNumbers) {
  // Four measured runs on each side; BASE also holds a run that measured nothing, on a busy machine.
  std::vector<RunRecord> base, next;
  for (double t : {1.0, 1.1, 1.2, 1.3}) {
    base.push_back(cold_run(t, Status::Ok, false));
    next.push_back(cold_run(t, Status::Ok, t > 1.15));
  }
  base.push_back(cold_run(9.0, Status::Failed, true));
  const auto cmp = compare_runs({with_runs(base)}, {with_runs(next)}, 0.05);
  const auto row = std::find_if(cmp.rows.begin(), cmp.rows.end(), [](const auto& r) { return r.metric == "cold_ttfr_s"; });
  ASSERT_NE(row, cmp.rows.end());
  EXPECT_EQ(row->n_base, 4u);
  EXPECT_EQ(row->base_interference.runs, 4);  // not 5: the failed run gave no sample
  EXPECT_EQ(row->base_interference.interfered, 0);
  EXPECT_EQ(row->new_interference.runs, 4);
  EXPECT_EQ(row->new_interference.interfered, 2);
}

// peak_rss_kib is the workload's peak (the worker's high-water mark after the
// measured calls), never wait4's, which holds the harness's verification too:
// a case gives every run's, or none where any ok run did not report it (the
// rest would be a censored sample).
TEST(Compare, PeakRssIsTheWorkloadsAllOrNone) {
  auto runs_of = [](std::vector<std::optional<double>> hwm) {
    std::vector<RunRecord> runs;
    for (auto v : hwm) {
      auto r = cold_run(1.0, Status::Ok, false);
      r.max_rss_kib = 900000;  // the whole process's, harness included: never the sample
      r.worker.hwm_after_calls_kib = v;
      runs.push_back(r);
    }
    return runs;
  };
  const auto all = metric_samples(with_runs(runs_of({50000, 51000, 52000})));
  ASSERT_TRUE(all.count("peak_rss_kib"));
  EXPECT_EQ(all.at("peak_rss_kib"), (std::vector<double>{50000, 51000, 52000}));
  EXPECT_FALSE(metric_samples(with_runs(runs_of({50000, std::nullopt, 52000}))).count("peak_rss_kib"));
}

}  // namespace
}  // namespace jitbench::compare
