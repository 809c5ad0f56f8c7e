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

TEST(Protocol, ChecksColdResultFields) {
  const char* ok =
      R"({"type":"result","mode":"cold","import_s":0.1,"setup_s":0.01,"first_call_s":0.2,)"
      R"("second_call_s":0.01,"verify":{"ok":true}})";
  EXPECT_EQ(error_of(ok), "");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"cold","import_s":0.1,"setup_s":0,"first_call_s":0.2,"verify":{"ok":true}})"),
            "result message: missing 'second_call_s'");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"cold","import_s":-1,"setup_s":0,"first_call_s":0.2,"second_call_s":0,"verify":{"ok":true}})"),
            "result message: 'import_s' must be >= 0");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"cold","import_s":"1","setup_s":0,"first_call_s":0.2,"second_call_s":0,"verify":{"ok":true}})"),
            "result message: 'import_s' must be a number");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"cold","import_s":1,"setup_s":0,"first_call_s":0.2,"second_call_s":0})"),
            "result message: 'verify' must be an object");
}

TEST(Protocol, ChecksWarmResultCalls) {
  EXPECT_EQ(error_of(R"({"type":"result","mode":"warm","import_s":0,"setup_s":0,"first_call_s":0,"calls_s":[0.1,0.2],"verify":{"ok":true}})"), "");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"warm","import_s":0,"setup_s":0,"first_call_s":0,"calls_s":[0.1,"x"],"verify":{"ok":true}})"),
            "result message: 'calls_s' must hold numbers >= 0");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"hot","import_s":0,"setup_s":0,"first_call_s":0,"verify":{"ok":true}})"),
            "result message: 'mode' must be \"cold\", \"warm\" or \"aot\"");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"aot","import_s":0,"setup_s":0,"first_call_s":0,"verify":{"ok":true}})"),
            "result message: 'aot' must be an object");
  EXPECT_EQ(error_of(R"({"type":"result","mode":"aot","import_s":0,"setup_s":0,"first_call_s":0,"verify":{"ok":true},)"
                     R"("aot":{"trace_s":0,"lower_s":0,"compile_s":-1,"execute_s":0}})"),
            "result message: aot: 'compile_s' must be >= 0");
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
