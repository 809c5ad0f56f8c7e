#include "export/docs/interference_text.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

// One ok cold process of 1 s on 2 CPUs; the worker kept one busy and others
// took `others` CPUs (nullopt: not reported).
RunRecord process(std::optional<double> others) {
  RunRecord r;
  r.status = Status::Ok;
  r.wall_s = 1.0;
  if (!others) return r;
  Interference x;
  x.other_cpu_s = *others;
  x.worker_cpu_s = 1.0;
  x.wall_s = 1.0;
  x.n_cpus = 2;
  x.interfered = interference_rule(*others, 0, 1.0, 1.0, 2, 0.02);
  r.interference = x;
  return r;
}

CaseResult with_cold(std::vector<std::optional<double>> others) {
  CaseResult c;
  c.c = make_case("numpy", "matmul", 8, "f32");
  c.status = Status::Ok;
  for (auto o : others) c.cold.push_back(process(o));
  return c;
}

InterferenceShare cold_share(std::vector<std::optional<double>> others) {
  return interference_share(with_cold(std::move(others)).cold);
}

TEST(InterferenceText, ACellGivesTheGradeAndOthersCpus) {
  EXPECT_EQ(grade_cell(cold_share({0.0, 0.1, 0.05})), "quiet");
  EXPECT_EQ(grade_cell(cold_share({1.1, 1.0, 1.2})), "busy 1.1");
  EXPECT_EQ(grade_cell(cold_share({1.7, 1.6, 0.0})), "contended 1.6");  // the upper median of quiet, 2 contended
  EXPECT_EQ(grade_cell(cold_share({std::nullopt})), "—");
  EXPECT_EQ(grade_word(cold_share({std::nullopt})), "not reported");
  EXPECT_EQ(grade_word(cold_share({1.7, 1.6})), "contended");
}

TEST(InterferenceText, ACaseLineNamesEachSidesGradeAndCount) {
  EXPECT_EQ(case_interference_text(with_cold({0.0, 0.0})), "");  // nothing interfered: no line
  EXPECT_EQ(case_interference_text(with_cold({1.1, 1.0, 0.0})),
            "cold runs busy (others 1.0 of 2 CPUs; 2/3 interfered with)");
  EXPECT_EQ(case_interference_text(with_cold({1.8})), "cold run contended (others 1.8 of 2 CPUs; 1/1 interfered with)");
  // One disturbed process of five leaves the set quiet, and the line says so.
  EXPECT_EQ(case_interference_text(with_cold({1.8, 0.0, 0.0, 0.0, 0.0})),
            "cold runs quiet (others 0.0 of 2 CPUs; 1/5 interfered with)");
}

TEST(InterferenceText, TheRunsLineGivesItsGradeTheGradesAndTheRange) {
  EXPECT_EQ(run_interference_line({with_cold({0.0, 0.2})}),
            "Grade: quiet. No measured process was interfered with (2 measured; others took 0.0–0.2 of 2 CPUs, "
            "median 0.1).");
  const auto line = run_interference_line({with_cold({1.1, 1.7, 1.2}), with_cold({std::nullopt})});
  EXPECT_EQ(line.substr(0, line.find(':')), "Grade");
  EXPECT_NE(line.find("Grade: busy. 3 of 3 measured processes were interfered with (2 busy, 1 contended; others "
                      "took 1.1–1.7 of 2 CPUs, median 1.2)"), std::string::npos) << line;
  EXPECT_NE(line.find("Not reported for 1 more"), std::string::npos) << line;
}

}  // namespace
}  // namespace jitbench
