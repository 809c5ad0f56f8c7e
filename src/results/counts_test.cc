#include "results/counts.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

RunRecord counted(std::vector<CountSegment> segments, int calls = 10, Status status = Status::Ok) {
  RunRecord r;
  r.mode = RunMode::Count;
  r.status = status;
  RunCounts c;
  c.source = "valgrind";
  c.segments = std::move(segments);
  c.warm_calls = calls;
  r.counts = c;
  return r;
}

std::vector<CountSegment> jax_like(double compile) {
  return {{"harness_start", 80e6}, {"import", 1957e6},        {"setup", 5e6},
          {"first_call.trace", 20e6}, {"first_call.compile", compile}, {"first_call.execute", 1e6},
          {"second_call", 2e6},       {"warm_calls", 10.6e6}};
}

TEST(CountPhases, TheFirstCallIsItsStagesTogetherAndTtfrAddsTheStartUp) {
  const auto phases = count_phases(*counted(jax_like(31e6)).counts);
  std::vector<std::string> names;
  for (const auto& [n, v] : phases) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"import", "setup", "first_call", "first_call.trace", "first_call.compile",
                                             "first_call.execute", "ttfr", "second_call", "warm_call"}));
  const auto at = [&](const std::string& n) {
    for (const auto& [k, v] : phases)
      if (k == n) return v;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(at("first_call"), 52e6);
  EXPECT_DOUBLE_EQ(at("ttfr"), 1957e6 + 5e6 + 52e6);  // the harness's own start-up is no phase
  EXPECT_DOUBLE_EQ(at("warm_call"), 1.06e6);          // per call
}

TEST(CountPhases, ASegmentMarkedTwiceAddsUp) {  // numba: compile and other alternate
  const auto phases = count_phases(*counted({{"harness_start", 1}, {"import", 10}, {"setup", 1}, {"first_call.other", 2},
                                             {"first_call.compile", 30}, {"first_call.other", 3}, {"second_call", 1},
                                             {"warm_calls", 10}}).counts);
  EXPECT_EQ(phases[2], (std::pair<std::string, double>{"first_call", 35}));
  EXPECT_EQ(phases[3], (std::pair<std::string, double>{"first_call.other", 5}));
}

TEST(CountSummary, EachPhasesMedianAndSpreadOverTheOkProcesses) {
  CaseResult c;
  c.counted = {counted(jax_like(30e6)), counted(jax_like(31e6)), counted(jax_like(99e6), 10, Status::Failed)};
  const auto s = count_summary(c);
  const auto compile = std::find_if(s.begin(), s.end(), [](const auto& p) { return p.phase == "first_call.compile"; });
  ASSERT_NE(compile, s.end());
  EXPECT_EQ(compile->n, 2u);  // the failed process counts nothing
  EXPECT_DOUBLE_EQ(compile->median, 30.5e6);
  EXPECT_NEAR(*compile->spread_pct, 1e6 / 30.5e6 * 100, 1e-9);
  EXPECT_EQ(count_source(c), "valgrind");
  c.counted[1].counts->source = "hardware";
  EXPECT_EQ(count_source(c), "");  // two sources: no count to compare
  CaseResult one;
  one.counted = {counted(jax_like(30e6))};
  EXPECT_FALSE(count_summary(one).front().spread_pct);
}

TEST(CountStatus, ACrashedCountWarnsALyingOneFailsAndAnUncountableCaseSaysWhy) {
  CaseResult c;
  RunRecord cold;
  cold.status = Status::Ok;
  c.cold = {cold};
  auto crashed = counted({});
  crashed.status = Status::Failed;
  crashed.reason = {ReasonCode::WorkerFailed, ""};
  c.counted = {crashed};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Warn);
  EXPECT_EQ(c.reason.code, ReasonCode::CountFailed);
  EXPECT_TRUE(timings_comparable(c));  // the times stand
  c.counted[0].reason = {ReasonCode::ProtocolViolation, "counts"};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Failed);
  c.counted.clear();
  c.count = CountSetup{};
  c.count->unsupported = "a GPU backend";
  settle_status(c);
  EXPECT_EQ(c.status, Status::Warn);
  EXPECT_EQ(to_string(c.reason), "count_unsupported: a GPU backend");
}

}  // namespace
}  // namespace jitbench
