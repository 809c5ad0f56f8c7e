// The one line form of the sub-phases that moved (compare, releases, bisect).
#include "export/docs/anatomy_delta_text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace jitbench {
namespace {

SubPhaseDelta moved(std::vector<std::string> path, double base, double next) {
  SubPhaseDelta d;
  d.path = std::move(path);
  d.base_s = base;
  d.new_s = next;
  d.change_s = next - base;
  d.n_base = d.n_new = 5;
  d.base_lo = d.base_hi = base;
  d.new_lo = d.new_hi = next;
  d.ratio = next / base;
  d.lo = d.ratio, d.hi = d.ratio;
  return d;
}

// An item only NEW's processes reported (a renamed event's new name): its
// whole time is the change, and it has no ratio.
SubPhaseDelta new_item(std::vector<std::string> path, double next) {
  SubPhaseDelta d = moved(std::move(path), next, next);
  d.base_s.reset(), d.ratio.reset(), d.lo.reset(), d.hi.reset();
  d.change_s = next;
  return d;
}

TEST(AnatomyDeltaText, ThePhaseThenTheDeepestItemThatHoldsHalfItsChange) {
  auto compile = moved({"compile"}, 1.0, 2.0);
  compile.lo = 1.8, compile.hi = 2.4;
  std::vector<SubPhaseDelta> ds{compile, moved({"compile", "backend_compile_and_load"}, 0.5, 1.2),
                                moved({"compile", "backend_compile_and_load", "RunBackend"}, 0.4, 0.9),
                                moved({"compile", "backend_compile_and_load", "RunBackend", "Codegen"}, 0.3, 0.7)};
  EXPECT_EQ(anatomy_delta_line(ds),
            "compile +1.000 s (×2.00 [1.80–2.40]), of which RunBackend +500.00 ms (×2.25 [2.25–2.25]), 50% of the "
            "change (shares without an interval: fewer than 6 anatomy processes a side)");
  ds[3].new_s = 0.75, ds[3].change_s = 0.45;  // under half the phase's change: its parent holds it
  ds[3].ratio = ds[3].lo = ds[3].hi = 2.5;
  EXPECT_NE(anatomy_delta_line(ds).find("of which RunBackend +500.00 ms"), std::string::npos) << anatomy_delta_line(ds);
  EXPECT_EQ(anatomy_path_label(ds[2].path), "compile › backend_compile_and_load › RunBackend");
  // The block lists every item under the headline.
  const auto block = anatomy_delta_block(ds, "  ");
  EXPECT_NE(block.find("compile › backend_compile_and_load › RunBackend"), std::string::npos) << block;
  EXPECT_EQ(anatomy_delta_line({}), "");
}

TEST(AnatomyDeltaText, OfWhichNamesOnlyAnItemBelowTheHead) {
  // No phase listed: the line starts at compile › a, which moved most; compile › b › x shares its first name
  // but is not below it, so "of which" names a's own sub-item, never x.
  const std::vector<SubPhaseDelta> ds{moved({"compile", "a"}, 0.1, 0.9), moved({"compile", "b", "x"}, 0.2, 0.7),
                                      moved({"compile", "a", "y"}, 0.05, 0.1)};
  const auto line = anatomy_delta_line(ds);
  EXPECT_EQ(line.rfind("compile › a ", 0), 0u) << line;
  EXPECT_NE(line.find("; none of its sub-phases holds half of it, alone or two or three together (largest move below: y "), std::string::npos) << line;
  EXPECT_EQ(line.find("of which x "), std::string::npos) << line;
  EXPECT_EQ(line.find("below: x "), std::string::npos) << line;
}

// A renamed event is new on one side with its whole time as change: never the
// answer while an item measured on both sides holds the change.
TEST(AnatomyDeltaText, ARenamedEventIsNotWhereTheChangeWent) {
  const SubPhaseDelta legacy = new_item({"compile", "xla", "CompileLegacyCpuExecutable"}, 0.6);
  const std::vector<SubPhaseDelta> ds{moved({"compile"}, 0.70, 0.765), moved({"compile", "xla"}, 0.68, 0.745), legacy};
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find("of which xla +65.00 ms"), std::string::npos) << line;
  // Only one-sided items below the phase: the largest, marked new.
  const std::vector<SubPhaseDelta> only{moved({"compile"}, 0.70, 0.765), legacy};
  EXPECT_NE(anatomy_delta_line(only).find("of which CompileLegacyCpuExecutable +600.00 ms (new)"), std::string::npos);
}

// A renamed item is no answer while an item measured on both sides lies
// below the phase, even one that holds less than half.
TEST(AnatomyDeltaText, ARenamedEventIsNoFallbackEither) {
  const SubPhaseDelta legacy = new_item({"compile", "xla", "CompileLegacyCpuExecutable"}, 0.6);
  const std::vector<SubPhaseDelta> ds{moved({"compile"}, 0.70, 0.765), moved({"compile", "xla"}, 0.70, 0.72), legacy};
  const auto line = anatomy_delta_line(ds);
  EXPECT_NE(line.find("; none of its sub-phases holds half of it, alone or two or three together (largest move below: xla +20.00 ms"),
            std::string::npos) << line;
  EXPECT_EQ(line.find("CompileLegacyCpuExecutable"), std::string::npos) << line;
}

// The path down from the phase: A holds most of it, not the deepest item of
// another branch; a grandchild under a child that moved the other way is no
// answer either.
TEST(AnatomyDeltaText, WhereItWentFollowsThePathDown) {
  const std::vector<SubPhaseDelta> ds{moved({"compile"}, 1.0, 2.0), moved({"compile", "A"}, 1.0, 1.9),
                                      moved({"compile", "B"}, 1.0, 1.6), moved({"compile", "B", "C"}, 0.5, 1.0),
                                      moved({"compile", "D"}, 1.0, 0.5)};
  EXPECT_NE(anatomy_delta_line(ds).find("of which A +900.00 ms"), std::string::npos) << anatomy_delta_line(ds);
  const std::vector<SubPhaseDelta> other{moved({"compile"}, 1.0, 2.0), moved({"compile", "P"}, 1.0, 0.8),
                                         moved({"compile", "P", "G"}, 0.2, 1.0)};
  const auto line = anatomy_delta_line(other);
  EXPECT_EQ(line.find("of which"), std::string::npos) << line;
  EXPECT_NE(line.find("largest move below: G +800.00 ms"), std::string::npos) << line;
}

// A NaN change is no change either way: nothing is named for it.
TEST(AnatomyDeltaText, ANaNChangeNamesNothing) {
  auto phase = moved({"compile"}, 1.0, 2.0);
  phase.change_s = std::nan("");
  const std::vector<SubPhaseDelta> ds{phase, moved({"compile", "a"}, 1.0, 0.95)};
  const auto line = anatomy_delta_line(ds);
  EXPECT_EQ(line.find("of which"), std::string::npos) << line;
  EXPECT_EQ(line.find("largest move"), std::string::npos) << line;
}

// A phase that grew while every item below it shrank: its change is in what
// they leave unattributed, and no item is named for it.
TEST(AnatomyDeltaText, NoItemThatMovedTheOtherWayIsNamed) {
  const std::vector<SubPhaseDelta> ds{moved({"compile"}, 0.50, 0.54), moved({"compile", "native_lowering"}, 0.10, 0.098)};
  EXPECT_EQ(anatomy_delta_line(ds).find("of which"), std::string::npos) << anatomy_delta_line(ds);
}

TEST(AnatomyDeltaText, OneSidedItemsAreNewOrGone) {
  SubPhaseDelta gone = moved({"compile", "ynn_fusion"}, 0.2, 0.0);
  gone.new_s.reset(), gone.ratio.reset(), gone.lo.reset(), gone.hi.reset();
  gone.change_s = -0.2;
  EXPECT_EQ(subphase_change(gone), "−200.00 ms (gone)");
  SubPhaseDelta added = gone;
  added.base_s.reset();
  added.new_s = 0.2;
  added.change_s = 0.2;
  EXPECT_EQ(subphase_change(added), "+200.00 ms (new)");
}

TEST(AnatomyDeltaText, FewProcessesGiveCountsAndRangesNotACi) {
  auto d = moved({"compile"}, 1.5, 3.0);
  d.lo.reset(), d.hi.reset();
  d.n_base = 2, d.base_lo = 1.4, d.base_hi = 1.6;
  d.n_new = 2, d.new_lo = 2.9, d.new_hi = 3.1;
  EXPECT_EQ(subphase_change(d), "+1.500 s (×2.00; n = 2, range 1.400–1.600 s → n = 2, range 2.900–3.100 s)");
}

// The ratio as the releases table prints it: no more digits than a step of
// hundreds is known to.
TEST(AnatomyDeltaText, ALargeStepsRatioHasNoHundredths) {
  auto d = moved({"compile"}, 0.001, 0.84009);
  d.lo = 812.3, d.hi = 871.96;
  EXPECT_EQ(subphase_change(d), "+839.09 ms (×840 [812–872])");
}

}  // namespace
}  // namespace jitbench
