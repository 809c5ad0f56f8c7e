#include "export/docs/compact_table.h"

#include <gtest/gtest.h>

#include "export/sections/sampling.h"
#include "stats/sequential.h"

namespace jitbench {
namespace {

TEST(CompactTable, AColumnAppearsOnlyWhereItHasAValue) {
  Table t{{"Case", "Precision", "TTFR"}, {}};
  t.add({"`a`", "—", "1 ms"});
  t.add({"`b`", "", "2 ms"});
  EXPECT_EQ(compact_markdown(t), "| Case | TTFR |\n|---|---|\n| `a` | 1 ms |\n| `b` | 2 ms |\n");
  t.rows[1].cells[1] = "fp32";
  EXPECT_NE(compact_markdown(t).find("Precision"), std::string::npos);
}

TEST(CompactTable, ARepeatedNoteIsWrittenOnceBelowTheTable) {
  const std::string note = "no ok native case of matmul_512_f32 in this run";  // > 30 characters
  Table t{{"Case", "Floor", "Eager"}, {}};
  t.add({"`a`", note, "`numpy_matmul_512_f32`"});
  t.add({"`b`", note, "`numpy_matmul_512_f32`"});
  t.add({"`c`", "short", "`numpy_matmul_512_f32`"});
  const auto md = compact_markdown(t);
  EXPECT_EQ(md.find(note), md.rfind(note)) << md;             // once
  EXPECT_NE(md.find("| `a` | [1] |"), std::string::npos) << md;
  EXPECT_NE(md.find("- [1] " + note + "\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| `c` | short | `numpy_matmul_512_f32` |"), std::string::npos) << md;  // a name stays
}

TEST(CompactTable, WidthCountsCharactersNotBytes) {
  EXPECT_EQ(display_width("µs – ×"), 6u);
}

TEST(Spread, AnIntervalOnlyWhereTheSamplingRuleGivesOne) {
  EXPECT_EQ(spread_cell({}), "—");
  EXPECT_EQ(spread_cell({0.1}), "n = 1");
  EXPECT_EQ(spread_cell({0.15054, 0.16474, 0.1522}), "n = 3, range 150.54–164.74 ms");
  EXPECT_EQ(spread_cell({0.9, 1.1}), "n = 2, range 900.00 ms–1.100 s");
  EXPECT_FALSE(stats::median_interval_possible(5, stats::kReportConfidence));
  EXPECT_TRUE(stats::median_interval_possible(6, stats::kReportConfidence));
  EXPECT_EQ(spread_cell({1, 2, 3, 4, 5, 6}), "n = 6, 95% CI 1.000–6.000 s");
}

}  // namespace
}  // namespace jitbench
