#include "compare/gate_verdict.h"

#include <gtest/gtest.h>

namespace jitbench::compare {
namespace {

// A time row 3x slower, its interval well above a 10% limit, p tiny.
MetricRow slower_row(const std::string& id, bool contended_new) {
  MetricRow r;
  r.case_id = id;
  r.metric = "cold_ttfr_s";
  r.n_base = r.n_new = 6;
  r.base_median = 1;
  r.new_median = 3;
  r.ratio = 3;
  r.lo = 2.8;
  r.hi = 3.2;
  r.p = 0.002;
  r.testable = r.significant = true;
  Interference quiet, hog;
  quiet.n_cpus = hog.n_cpus = 2;
  hog.interfered = true;
  hog.other_cpu_s = 1.8;
  hog.wall_s = 1;
  for (int i = 0; i < 6; ++i) {
    r.base_interference.add(quiet);
    r.new_interference.add(contended_new ? hog : quiet);
  }
  return r;
}

MetricRow same_row(const std::string& id) {
  MetricRow r = slower_row(id, false);
  r.new_median = 1;
  r.ratio = 1;
  r.lo = 0.95;
  r.hi = 1.05;
  r.p = 0.9;
  r.significant = false;
  return r;
}

MetricRow counts_row(const std::string& id) {
  MetricRow r = same_row(id);
  r.metric = "instructions_ttfr";
  r.rule = MetricRule::Spread;
  return r;
}

TEST(GateVerdict, OnlyNotQuietTimeRowsThatWouldFailAreReMeasured) {
  Comparison c;
  c.rows = {slower_row("a", true), slower_row("b", false), counts_row("a")};
  EXPECT_TRUE(needs_remeasure(c.rows[0], 10, 0.05));
  EXPECT_FALSE(needs_remeasure(c.rows[1], 10, 0.05));  // quiet sides: a regression as measured
  EXPECT_FALSE(needs_remeasure(c.rows[2], 10, 0.05));  // counts: not re-measured
  EXPECT_FALSE(needs_remeasure(c.rows[0], 500, 0.05));  // would not fail
  EXPECT_EQ(cases_to_remeasure(c, 10, 0.05), std::vector<std::string>{"a"});
  // One contended process of six leaves NEW's grade quiet, not NEW untouched: re-measured before it fails.
  MetricRow one_of_six = slower_row("d", false);
  Interference hog;
  hog.n_cpus = 2;
  hog.interfered = true;
  hog.other_cpu_s = 1.8;
  hog.wall_s = 1;
  one_of_six.new_interference.add(hog);
  ASSERT_EQ(one_of_six.new_interference.grade(), InterferenceGrade::Quiet);
  EXPECT_TRUE(needs_remeasure(one_of_six, 10, 0.05));
  // A side whose interference was not reported is not quiet either.
  MetricRow unreported = slower_row("c", false);
  unreported.base_interference = {};
  EXPECT_TRUE(needs_remeasure(unreported, 10, 0.05));
}

TEST(GateVerdict, TheReMeasurementClearsOrConfirms) {
  Comparison c;
  c.rows = {slower_row("a", true), slower_row("b", true)};
  Comparison again;
  again.rows = {same_row("a"), slower_row("b", false)};
  const auto v = gate_rows(c, 10.0, 0.05, again, true);
  ASSERT_EQ(v.rows.size(), 2u);
  EXPECT_EQ(v.rows[0].gate, RowGate::Cleared);
  EXPECT_EQ(v.rows[1].gate, RowGate::Confirmed);
  ASSERT_TRUE(v.rows[0].remeasured.has_value());
  EXPECT_EQ(v.exit_code, 1);
  again.rows = {same_row("a"), same_row("b")};
  EXPECT_EQ(gate_rows(c, 10.0, 0.05, again, true).exit_code, 0);
}

TEST(GateVerdict, WithoutAReMeasurementTheCountsOrTheRowsAsMeasuredDecide) {
  Comparison c;
  c.rows = {slower_row("a", true), counts_row("a"), slower_row("b", true)};
  const auto v = gate_rows(c, 10.0, 0.05, std::nullopt, true);
  EXPECT_EQ(v.rows[0].gate, RowGate::LeftToCounts);
  EXPECT_EQ(v.rows[1].gate, RowGate::Ok);  // the counts: within 0.95-1.05, clear of a 1.10 limit
  EXPECT_EQ(v.rows[2].gate, RowGate::Regression);
  EXPECT_EQ(v.exit_code, 1);
  // A re-measurement that gave a row no samples clears nothing.
  Comparison again;
  EXPECT_EQ(gate_rows(c, 10.0, 0.05, again, true).rows[2].gate, RowGate::Regression);
}

TEST(GateVerdict, CasesToReMeasureAreNamedByBasesOwnIds) {
  // Two runs of one case in different pinned environments pair without the environment part: the row
  // says "x", BASE's case is "x__env-a", and that is the case to measure again.
  Comparison c;
  MetricRow r = slower_row("x", true);
  r.base_case_id = "x__env-a";
  c.rows = {r};
  EXPECT_EQ(cases_to_remeasure(c, 10, 0.05), std::vector<std::string>{"x__env-a"});
}

TEST(GateVerdict, ARowIsLeftOnlyToItsOwnDecidedCount) {
  Comparison c;
  MetricRow memory = slower_row("a", true), compile = slower_row("a", true);
  memory.metric = "peak_rss_kib";  // no count measures memory
  compile.metric = "phase_compile_s";  // nor a phase the counts do not split out
  MetricRow undecided = counts_row("b");
  undecided.lo = 0.9;
  undecided.hi = 1.2;  // across the 1.10 limit
  c.rows = {memory, compile, counts_row("a"), slower_row("b", true), undecided};
  const auto v = gate_rows(c, 10.0, 0.05, std::nullopt, true);
  EXPECT_EQ(v.rows[0].gate, RowGate::Regression);
  EXPECT_EQ(v.rows[1].gate, RowGate::Regression);
  EXPECT_EQ(v.rows[3].gate, RowGate::Regression);  // its count did not decide
  EXPECT_EQ(v.rows[4].gate, RowGate::NotJudged);
}

TEST(GateVerdict, AReMeasurementWithoutTestableSamplesClearsNothing) {
  Comparison c, again;
  c.rows = {slower_row("a", true)};
  MetricRow failed = same_row("a");
  failed.testable = false;  // its re-measured processes failed: too few a side for the test
  again.rows = {failed};
  EXPECT_EQ(gate_rows(c, 10.0, 0.05, again, true).rows[0].gate, RowGate::Regression);
}

TEST(GateVerdict, AReMeasurementThatNeitherConfirmsNorClearsLeavesTheRowNotJudged) {
  Comparison c, again;
  c.rows = {slower_row("a", true)};
  MetricRow across = slower_row("a", true);
  across.ratio = 1.1;
  across.lo = 0.9;
  across.hi = 1.4;
  across.p = 0.3;
  across.significant = false;
  again.rows = {across};
  const auto v = gate_rows(c, 10.0, 0.05, again, true);
  EXPECT_EQ(v.rows[0].gate, RowGate::NotJudged);
  EXPECT_EQ(v.exit_code, 0);
}

TEST(GateVerdict, NoReMeasureJudgesEveryRowAsMeasured) {
  Comparison c;
  c.rows = {slower_row("a", true), counts_row("a"), same_row("b")};
  const auto v = gate_rows(c, 10.0, 0.05, std::nullopt, false);
  EXPECT_EQ(v.rows[0].gate, RowGate::Regression);
  EXPECT_EQ(v.rows[2].gate, RowGate::Ok);
  EXPECT_EQ(v.exit_code, 1);
  // No threshold: nothing gated, exit 0 whatever the rows say.
  const auto none = gate_rows(c, std::nullopt, 0.05, std::nullopt, true);
  EXPECT_EQ(none.rows[0].gate, RowGate::None);
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_STREQ(to_string(RowGate::None), "");
}

TEST(GateVerdict, WorseStatusesAndMissingCasesFailAsBefore) {
  Comparison c;
  c.rows = {same_row("a")};
  c.removed = {"gone"};
  EXPECT_EQ(gate_rows(c, 10.0, 0.05, std::nullopt, true).exit_code, 1);
  c.removed.clear();
  c.worsened = {"a: ok -> failed"};
  EXPECT_EQ(gate_rows(c, 10.0, 0.05, std::nullopt, true).exit_code, 1);
}

}  // namespace
}  // namespace jitbench::compare
