#include "run/protocol.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

std::string error_of(std::string_view line) {
  auto r = parse_message(line);
  if (auto* e = std::get_if<std::string>(&r)) return *e;
  return "";
}

TEST(Protocol, ParsesHello) {
  auto r = parse_message(R"({"type":"hello","protocol":1,"monotonic_ns":123,"pid":7})");
  ASSERT_TRUE(std::holds_alternative<Message>(r));
  EXPECT_EQ(std::get<Message>(r).type, MessageType::Hello);
}

TEST(Protocol, RejectsGarbage) {
  EXPECT_EQ(error_of("hello world"), "not valid JSON");
  EXPECT_EQ(error_of("[1,2]"), "not a JSON object");
  EXPECT_EQ(error_of(R"({"x":1})"), "missing 'type'");
  EXPECT_EQ(error_of(R"({"type":"nonsense"})"), "unknown message type 'nonsense'");
}

TEST(Protocol, RejectsWrongProtocolVersion) {
  EXPECT_NE(error_of(R"({"type":"hello","protocol":2,"monotonic_ns":1})").find("not supported"),
            std::string::npos);
}

TEST(Protocol, AResultIsCheckedAgainstTheRunAskedFor) {
  // parse_message takes any result object; result_violation checks it against the request.
  EXPECT_EQ(error_of(R"({"type":"result","mode":"cold"})"), "");
  const auto cold = nlohmann::json::parse(
      R"({"mode":"cold","import_s":0.1,"setup_s":0.01,"first_call_s":0.2,"second_call_s":0.01,"total_s":0.4,)"
      R"("verify":{"ok":true},"verify_first":{"ok":true},"first_call":{"phases":{},"phase_names":[]},)"
      R"("sync":{"pending_after_last_call":null},"precision":{"matmul":"ieee_fp32"}})");
  EXPECT_EQ(result_violation(cold, RunMode::Cold), "");
  auto bad = cold;
  bad["import_s"] = "1";
  EXPECT_EQ(result_violation(bad, RunMode::Cold), "import_s is not a duration (0, or >= 1 ns)");
  auto warm = cold;
  warm["mode"] = "warm";
  warm["calls_s"] = {0.1, "x"};
  EXPECT_EQ(result_violation(warm, RunMode::Warm, {2, 0, std::nullopt, std::nullopt}), "calls_s holds something other than durations (0, or >= 1 ns)");
  auto aot = cold;
  aot["mode"] = "aot";
  EXPECT_EQ(result_violation(aot, RunMode::Aot), "missing aot");
  aot["aot"] = {{"trace_s", 0}, {"lower_s", 0}, {"compile_s", -1}, {"execute_s", 0}};
  EXPECT_EQ(result_violation(aot, RunMode::Aot), "aot.compile_s is not a duration (0, or >= 1 ns)");
  aot["aot"]["compile_s"] = 0.1;
  EXPECT_EQ(result_violation(aot, RunMode::Aot), "");
}

// --target-ci: a worker may end its warm calls early only where the rule would
// have, judged on the calls it reports.
TEST(Protocol, WarmCallsEndEarlyOnlyWhenTheirIntervalIsTight) {
  auto warm = nlohmann::json::parse(
      R"({"mode":"warm","import_s":0.1,"setup_s":0.01,"first_call_s":0.2,"total_s":2,)"
      R"("verify":{"ok":true},"verify_first":{"ok":true},"first_call":{"phases":{},"phase_names":[]},)"
      R"("sync":{"pending_after_last_call":null},"precision":{"matmul":"ieee_fp32"}})");
  const WarmCallsAsked asked{30, 10, 5.0, std::nullopt};
  warm["calls_s"] = std::vector<double>(10, 0.001);
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "");
  std::vector<double> spread;
  for (int i = 0; i < 30; ++i) spread.push_back(0.001 * (1 + i % 5));  // +-100%: never tight
  warm["calls_s"] = std::vector<double>(spread.begin(), spread.begin() + 10);
  EXPECT_NE(result_violation(warm, RunMode::Warm, asked).find("stopped at 10 of 30 before their 99% interval"),
            std::string::npos);
  warm["calls_s"] = spread;  // all 30: the most asked for, tight or not
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "");
  warm["calls_s"] = std::vector<double>(5, 0.001);
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "calls_s holds 5 calls, 10 to 30 were asked for");
  warm["calls_s"] = std::vector<double>(10, 0.001);  // fixed counts: exactly the number asked
  EXPECT_EQ(result_violation(warm, RunMode::Warm, {30, 0, std::nullopt, std::nullopt}), "calls_s holds 10 calls, 30 were asked for");
}

// No count fixed: warm calls from `min` until they add up to min_time_s
// (calibrated by time), judged on the calls reported; --target-ci's early stop
// still applies beside it.
TEST(Protocol, CalibratedWarmCallsEndOnlyOnceTheyTookTheMinimumTime) {
  auto warm = nlohmann::json::parse(
      R"({"mode":"warm","import_s":0.1,"setup_s":0.01,"first_call_s":0.2,"total_s":9,)"
      R"("verify":{"ok":true},"verify_first":{"ok":true},"first_call":{"phases":{},"phase_names":[]},)"
      R"("sync":{"pending_after_last_call":null},"precision":{"matmul":"ieee_fp32"}})");
  const WarmCallsAsked asked{1000, 5, std::nullopt, 0.5};
  warm["calls_s"] = std::vector<double>(5, 1.2);  // a slow function: its 5 calls at least, 6 s
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "");
  warm["calls_s"] = std::vector<double>(4, 1.2);
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "calls_s holds 4 calls, 5 to 1000 were asked for");
  warm["calls_s"] = std::vector<double>(100, 0.001);  // 0.1 s: stopped before the time
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked),
            "the warm calls stopped at 100 of 1000 before they took 0.5 s (they took 0.1 s)");
  warm["calls_s"] = std::vector<double>(500, 0.001);  // 0.5 s, summed as the worker sums them
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "");
  warm["calls_s"] = std::vector<double>(1000, 0.0001);  // a fast function: the most asked, 0.1 s
  EXPECT_EQ(result_violation(warm, RunMode::Warm, asked), "");
  const WarmCallsAsked both{1000, 10, 5.0, 0.5};  // --target-ci too: tight calls may end sooner
  warm["calls_s"] = std::vector<double>(10, 0.001);
  EXPECT_EQ(result_violation(warm, RunMode::Warm, both), "");
  std::vector<double> spread;
  for (int i = 0; i < 10; ++i) spread.push_back(0.001 * (1 + i % 5));
  warm["calls_s"] = spread;  // neither tight nor long enough
  EXPECT_NE(result_violation(warm, RunMode::Warm, both).find("or they took 0.5 s"), std::string::npos);
}

TEST(Protocol, SkipMustBeWarn) {
  EXPECT_EQ(error_of(R"({"type":"skip","status":"warn","reason":"missing_dependency: jax"})"), "");
  EXPECT_EQ(error_of(R"({"type":"skip","status":"ok","reason":"x"})"),
            "skip message: 'status' of a skip must be \"warn\"");
}

TEST(LineSplitter, SplitsAcrossChunks) {
  LineSplitter s;
  s.feed("{\"a\":");
  EXPECT_TRUE(s.take_lines().empty());
  s.feed("1}\n{\"b\":2}\n{\"c\"");
  auto lines = s.take_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "{\"a\":1}");
  EXPECT_EQ(s.pending(), "{\"c\"");
}

TEST(LineSplitter, OverlongLineIsDroppedAndFlagged) {
  LineSplitter s(8);
  s.feed("0123456789abcdef\nok\n");
  auto lines = s.take_lines();
  EXPECT_TRUE(s.overflowed());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "ok");
}

}  // namespace
}  // namespace jitbench
