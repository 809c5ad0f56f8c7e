#include "results/interference.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

// One process of 1 s on `cpus` CPUs whose worker used `worker` CPUs while
// others used `others` (flagged by the rule, as the sampler flags it).
Interference process(double others, double worker, int cpus = 2, double steal = 0) {
  Interference x;
  x.other_cpu_s = others;
  x.steal_s = steal;
  x.worker_cpu_s = worker;
  x.wall_s = 1.0;
  x.n_cpus = cpus;
  x.interfered = interference_rule(others, steal, worker, 1.0, cpus, 0.02);
  return x;
}

TEST(InterferenceGrade, TheThreeConditionsOfDocsNoise) {
  // Beside an idle shell: a few ticks of others.
  EXPECT_EQ(interference_grade(process(0.05, 1.0)), InterferenceGrade::Quiet);
  // A shared machine (load ~3 on 2 cores): others took 0.92-1.42 CPUs.
  EXPECT_EQ(interference_grade(process(0.92, 1.0)), InterferenceGrade::Busy);
  EXPECT_EQ(interference_grade(process(1.42, 0.6)), InterferenceGrade::Busy);
  // Two CPU hogs on 2 cores: others took 1.70-1.76 CPUs.
  EXPECT_EQ(interference_grade(process(1.70, 0.3)), InterferenceGrade::Contended);
}

TEST(InterferenceGrade, ContentionIsMostOfTheMachineOrSteal) {
  // Others took all the worker left idle (a compile on both cores, 1.2 CPUs, others 0.8): busy, not contended.
  EXPECT_EQ(interference_grade(process(0.8, 1.2)), InterferenceGrade::Busy);
  EXPECT_EQ(interference_grade(process(1.5, 0.5)), InterferenceGrade::Contended);
  // 64 CPUs, a one-thread worker, others on 40: interfered with, not contended.
  EXPECT_EQ(interference_grade(process(40, 1.0, 64)), InterferenceGrade::Busy);
  EXPECT_EQ(interference_grade(process(48.5, 1.0, 64)), InterferenceGrade::Contended);
  // Steal of a quarter CPU or more.
  EXPECT_EQ(interference_grade(process(0.1, 1.0, 2, 0.1)), InterferenceGrade::Busy);
  EXPECT_EQ(interference_grade(process(0.1, 1.0, 2, 0.3)), InterferenceGrade::Contended);
}

TEST(InterferenceGrade, NeverContradictsTheFlag) {
  auto x = process(1.9, 0.1);
  ASSERT_TRUE(x.interfered);
  x.interfered = false;  // a case file whose flag says otherwise: the flag wins, never a louder grade
  EXPECT_EQ(interference_grade(x), InterferenceGrade::Quiet);
}

TEST(InterferenceImpossible, WhatAProcessCanHaveIsAccepted) {
  EXPECT_EQ(interference_impossible(process(0.05, 1.0)), "");
  EXPECT_EQ(interference_impossible(process(1.70, 0.3)), "");
  EXPECT_EQ(interference_impossible(process(0.0, 1.0, 2, 0.3)), "");
  // A process of 1 ms: a tick of others is many CPUs' worth, and can be.
  auto brief = process(0.02, 0.001);
  brief.wall_s = 0.001;
  brief.interfered = interference_rule(0.02, 0, 0.001, 0.001, 2, 0.02);
  EXPECT_EQ(interference_impossible(brief), "");
}

TEST(InterferenceImpossible, OthersBeyondTheMachineAreCappedNotRefused) {
  auto crowd = process(50.0, 1.0);  // others on 50 CPUs of a 2-CPU machine: an interval longer than the process
  EXPECT_TRUE(cap_to_capacity(crowd));
  EXPECT_NEAR(crowd.other_cpu_s, 2.0 * 1.0 + 2 * kSampleSlackTicks / kSlowestTicksPerS, 1e-12);
  EXPECT_EQ(interference_impossible(crowd), "");
  auto quiet = process(0.05, 1.0);
  EXPECT_FALSE(cap_to_capacity(quiet));
  EXPECT_EQ(quiet.other_cpu_s, 0.05);
}

TEST(InterferenceImpossible, FiguresNoProcessCanHaveAreNamed) {
  auto steal = process(0.0, 1.0);
  steal.steal_s = -0.5;
  EXPECT_NE(interference_impossible(steal).find("steal_s -0.5 is negative"), std::string::npos);
  auto none = process(0.0, 1.0);
  none.n_cpus = 0;
  EXPECT_NE(interference_impossible(none), "");
}

TEST(InterferenceImpossible, AFlagItsFiguresContradictIsNamed) {
  auto quiet_flagged = process(0.05, 1.0);
  quiet_flagged.interfered = true;
  EXPECT_EQ(interference_impossible(quiet_flagged), "interfered is true where its figures say quiet");
  auto busy_unflagged = process(1.70, 0.3);
  busy_unflagged.interfered = false;
  EXPECT_EQ(interference_impossible(busy_unflagged), "interfered is false where its figures say interfered with");
}

TEST(InterferenceShare, TheSetsGradeIsTheUpperMedian) {
  InterferenceShare s;
  EXPECT_FALSE(s.grade());
  EXPECT_EQ(s.grade_text(), "not reported");
  for (int i = 0; i < 3; ++i) s.add(process(0.05, 1.0));
  s.add(process(1.8, 0.2));  // one disturbed process of four: still quiet
  s.runs = 4;
  EXPECT_EQ(s.grade(), InterferenceGrade::Quiet);
  s.add(process(1.0, 1.0));
  s.add(process(1.8, 0.2));  // 3 quiet, 1 busy, 2 contended: the upper median (4th of 6) is busy
  EXPECT_EQ(s.grade(), InterferenceGrade::Busy);
  EXPECT_EQ(s.interfered, 3);
  EXPECT_EQ(s.busy + s.contended, s.interfered);
  EXPECT_FALSE(s.all_quiet());
  EXPECT_NEAR(*s.others_cpus_median(), (0.05 + 1.0) / 2, 1e-12);
  EXPECT_EQ(s.grade_text(), "busy (others 0.5 of 2 CPUs)");
  InterferenceShare t;
  t.add(process(1.75, 0.3));
  t += s;
  EXPECT_EQ(t.reported, 7);
  EXPECT_EQ(t.contended, 3);
}

}  // namespace
}  // namespace jitbench
