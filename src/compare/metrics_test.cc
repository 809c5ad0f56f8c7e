#include "compare/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "compare/compare.h"

namespace jitbench::compare {
namespace {

TEST(Metrics, EachMetricIsJudgedByItsKindsRule) {
  EXPECT_EQ(metric_info("cold_ttfr_s").rule, MetricRule::MannWhitney);
  EXPECT_EQ(metric_info("peak_rss_kib").kind, MetricKind::Memory);
  EXPECT_EQ(metric_info("instructions_first_call.compile").rule, MetricRule::Spread);
  EXPECT_EQ(instructions_phase("instructions_first_call.compile"), "first_call.compile");
  EXPECT_EQ(instructions_metric("import"), "instructions_import");
  EXPECT_EQ(instructions_phase("cold_ttfr_s"), "");
}

TEST(SpreadRule, TwoProcessesASideDecideWhereTheSpreadIsSmall) {
  // The same code counted twice a side, 0.3% apart: within a 2% threshold, clear.
  const auto same = metric_row("c", "instructions_first_call", {1000e6, 1003e6}, {1001e6, 1002e6}, 0.05);
  ASSERT_TRUE(same);
  EXPECT_TRUE(same->testable);
  EXPECT_FALSE(same->significant);
  EXPECT_EQ(same->verdict, "within spread");
  EXPECT_TRUE(std::isnan(same->p));
  EXPECT_DOUBLE_EQ(same->lo, 1001e6 / 1003e6);
  EXPECT_DOUBLE_EQ(same->hi, 1002e6 / 1000e6);
  EXPECT_EQ(gate(*same, 1.02, 0.05), Gate::Clear);
  // 5% more, 0.1% spread: a regression beyond 2%, judged without a test.
  const auto more = metric_row("c", "instructions_first_call", {1000e6, 1001e6}, {1050e6, 1051e6}, 0.05);
  EXPECT_EQ(more->verdict, "more instructions");
  EXPECT_EQ(gate(*more, 1.02, 0.05), Gate::Regression);
  EXPECT_EQ(gate(*more, 1.10, 0.05), Gate::Clear);
  // A spread wider than the step leaves it undecided.
  const auto wide = metric_row("c", "instructions_first_call", {900e6, 1100e6}, {1020e6, 1040e6}, 0.05);
  EXPECT_EQ(gate(*wide, 1.02, 0.05), Gate::Undecided);
  // One process a side: no spread, no verdict.
  const auto one = metric_row("c", "instructions_import", {1e6}, {2e6}, 0.05);
  EXPECT_FALSE(one->testable);
  EXPECT_EQ(one->verdict, "too few runs");
  EXPECT_EQ(gate(*one, 1.02, 0.05), Gate::Undecided);
}

// Two processes a side from one distribution: their ranges miss each other one
// time in three, which alone would call a third of A/A comparisons "more" or
// "fewer instructions"; the range test keeps it near its 5%.
TEST(SpreadRule, ACountThatDidNotChangeIsRarelyCalledAChange) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> count(1e9, 3e5);  // a callgrind count's 0.03% spread
  int apart = 0, changed = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) {
    const std::vector<double> a = {count(rng), count(rng)}, b = {count(rng), count(rng)};
    const auto r = metric_row("c", "instructions_import", a, b, 0.05);
    apart += r->lo > 1 || r->hi < 1;
    changed += r->significant;
    EXPECT_EQ(gate(*r, 1.02, 0.05), Gate::Clear);
  }
  EXPECT_NEAR(double(apart) / kDraws, 1.0 / 3, 0.02);
  EXPECT_NEAR(double(changed) / kDraws, 0.05, 0.01);
}

TEST(SpreadRule, FromNineProcessesTheMediansIntervalLeavesAnOutlierOut) {
  std::vector<double> base(9, 1000.0), next(9, 1001.0);
  base[0] = 500;  // one process of BASE counted half: the range would span 2x
  const auto r = metric_row("c", "instructions_import", base, next, 0.05);
  EXPECT_EQ(gate(*r, 1.02, 0.05), Gate::Clear);
  base.resize(8);
  next.resize(8);
  EXPECT_EQ(gate(*metric_row("c", "instructions_import", base, next, 0.05), 1.02, 0.05), Gate::Undecided);
}

TEST(SpreadRule, TheTimeGateIsUnchanged) {
  const auto t = metric_row("c", "cold_ttfr_s", {1, 1.1, 1.2, 1.05, 1.15}, {2, 2.1, 2.2, 2.05, 2.15}, 0.05);
  EXPECT_EQ(t->rule, MetricRule::MannWhitney);
  EXPECT_EQ(gate(*t, 1.1, 0.05), Gate::Regression);
}

CaseResult counted_case(double import_time, double import_count) {
  CaseResult c;
  c.c = make_case("numpy", "matmul", 8, "f32");
  c.status = Status::Ok;
  for (double f : {1.0, 1.01, 0.99, 1.02, 0.98}) {
    RunRecord r;
    r.status = Status::Ok;
    r.import_s = import_time * f;
    r.setup_s = 0.01;
    r.first_call_s = 0.01;
    r.total_s = 1;
    c.cold.push_back(r);
  }
  for (double f : {1.0, 1.0005}) {
    RunRecord r;
    r.mode = RunMode::Count;
    r.status = Status::Ok;
    r.counts = RunCounts{"valgrind", {{"harness_start", 1}, {"import", import_count * f}, {"setup", 1e6},
                                      {"first_call", 1e6}, {"second_call", 1e3}, {"warm_calls", 1e4}},
                         10, "", "", false};
    c.counted.push_back(r);
  }
  return c;
}

TEST(Disagreement, ATimeThatMovedWithoutItsCountIsSaid) {
  // NEW's import waits twice as long (a sleep, a busy machine) and executes the same instructions.
  const auto cmp = compare_runs({counted_case(0.2, 300e6)}, {counted_case(0.4, 300e6)}, 0.05);
  const auto lines = time_count_disagreements(cmp);
  ASSERT_EQ(lines.size(), 2u);  // the import, and the TTFR it is part of
  EXPECT_NE(lines[0].find("cold_import_s is slower"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("instructions_import is within spread"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("cold_ttfr_s is slower"), std::string::npos) << lines[1];
  // Both moved the same way: nothing to say.
  EXPECT_TRUE(time_count_disagreements(compare_runs({counted_case(0.2, 300e6)}, {counted_case(0.4, 600e6)}, 0.05))
                  .empty());
  // Two sources are never compared: said once.
  auto hw = counted_case(0.2, 300e6);
  for (auto& r : hw.counted) r.counts->source = "hardware";
  const auto mixed = compare_runs({counted_case(0.2, 300e6)}, {hw}, 0.05);
  EXPECT_EQ(mixed.not_compared.size(), 1u);
  EXPECT_TRUE(std::none_of(mixed.rows.begin(), mixed.rows.end(),
                           [](const MetricRow& r) { return r.rule == MetricRule::Spread; }));
}

CaseResult counted_with(const std::string& threads, int calls) {
  auto c = counted_case(0.2, 300e6);
  c.count = CountSetup{};
  c.count->source = "valgrind";
  c.count->controls = {{"PYTHONHASHSEED", "0"}, {"aslr", "off"}, {"threads", threads}};
  c.count->calls = calls;
  return c;
}

std::size_t count_rows(const Comparison& cmp, const std::string& metric = "") {
  return std::count_if(cmp.rows.begin(), cmp.rows.end(), [&](const MetricRow& r) {
    return r.rule == MetricRule::Spread && (metric.empty() || r.metric == metric);
  });
}

TEST(Disagreement, CountsUnderOtherControlsOrCallsAreNotCompared) {
  const auto one = counted_with("OMP_NUM_THREADS=1", 10);
  const auto alike = compare_runs({one}, {counted_with("OMP_NUM_THREADS=1", 10)}, 0.05);
  EXPECT_TRUE(alike.not_compared.empty());
  EXPECT_GT(count_rows(alike), 0u);
  // Counted with the pools' default threads against one thread: no instruction row at all.
  const auto threads = compare_runs({one}, {counted_with("no thread setting", 10)}, 0.05);
  ASSERT_EQ(threads.not_compared.size(), 1u);
  EXPECT_NE(threads.not_compared[0].find("threads control differs"), std::string::npos) << threads.not_compared[0];
  // The same settings in other words (another jitbench's sentence around them) compare.
  auto reworded = counted_with("OMP_NUM_THREADS=1 (valgrind runs the threads one at a time)", 10);
  reworded.count->controls["aslr"] = "off: randomize_va_space = 0 on this machine";
  auto setarch = counted_with("OMP_NUM_THREADS=1 (other words)", 10);
  setarch.count->controls["aslr"] = "off: each counting process started under `setarch x86_64 -R`";
  const auto same = compare_runs({reworded}, {setarch}, 0.05);
  EXPECT_TRUE(same.not_compared.empty()) << same.not_compared[0];
  EXPECT_GT(count_rows(same), 0u);
  setarch.count->controls["aslr"] = "on: `setarch x86_64 -R` was refused here";
  EXPECT_EQ(count_rows(compare_runs({reworded}, {setarch}, 0.05)), 0u);
  EXPECT_EQ(count_rows(threads), 0u);
  // A control recorded on one side only (a case file of an older jitbench) is a difference too.
  auto older = counted_with("OMP_NUM_THREADS=1", 10);
  older.count->controls.erase("aslr");
  EXPECT_EQ(count_rows(compare_runs({older}, {one}, 0.05)), 0u);
  EXPECT_EQ(count_rows(compare_runs({one}, {older}, 0.05)), 0u);
  // 2 warm calls counted against 10: every phase but the warm call's compares.
  const auto calls = compare_runs({one}, {counted_with("OMP_NUM_THREADS=1", 2)}, 0.05);
  ASSERT_EQ(calls.not_compared.size(), 1u);
  EXPECT_NE(calls.not_compared[0].find("instructions_warm_call not compared"), std::string::npos);
  EXPECT_EQ(count_rows(calls, "instructions_warm_call"), 0u);
  EXPECT_EQ(count_rows(calls, "instructions_import"), 1u);
}

}  // namespace
}  // namespace jitbench::compare
