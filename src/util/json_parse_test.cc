#include "util/json_parse.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

TEST(JsonParse, DepthIgnoresBracketsInStrings) {
  EXPECT_EQ(json_depth(R"({"a": [1, {"b": "[[[{{{"}]})"), 3);
  EXPECT_EQ(json_depth(R"("\"[")"), 0);
  EXPECT_EQ(json_depth("[]"), 1);
}

TEST(JsonParse, TooDeepIsRefusedBeforeParsing) {
  const std::string deep = std::string(70000, '[') + std::string(70000, ']');
  auto r = parse_json(deep);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r), "nested deeper than 256 levels");
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(std::holds_alternative<nlohmann::json>(parse_json(ok)));
  EXPECT_EQ(std::get<std::string>(parse_json("{not json")), "not valid JSON");
}

TEST(JsonParse, InvalidUtf8IsReplacedNotThrown) {
  const nlohmann::json j = {{"path", std::string("utf\xff\xfe" "bad")}};
  EXPECT_EQ(dump_json(j), "{\"path\":\"utf\xEF\xBF\xBD\xEF\xBF\xBD" "bad\"}");
}

TEST(JsonParse, Utf8Validation) {
  EXPECT_TRUE(is_valid_utf8("plain/ascii"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("utf\xff\xfe" "bad"));
  EXPECT_FALSE(is_valid_utf8("\xC3"));              // cut short
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
}

}  // namespace
}  // namespace jitbench
