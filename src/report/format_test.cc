#include "report/format.h"

#include <gtest/gtest.h>

namespace jitbench {
TEST(FormatSeconds, ContractBands) {
  EXPECT_EQ(format_seconds(0.0), "—");
  EXPECT_EQ(format_seconds(-1.0), "—");
  EXPECT_EQ(format_seconds(0.00012346), "123.5 µs");
  EXPECT_EQ(format_seconds(0.0012345), "1.23 ms");
  EXPECT_EQ(format_seconds(0.5), "500.00 ms");
  EXPECT_EQ(format_seconds(1.0), "1.000 s");
  EXPECT_EQ(format_seconds(12.34567), "12.346 s");
  EXPECT_EQ(format_seconds(std::optional<double>()), "—");
}
TEST(FormatRatio, DigitsByMagnitude) {
  EXPECT_EQ(format_ratio(0.874), "0.87");
  EXPECT_EQ(format_ratio(3.334), "3.33");
  EXPECT_EQ(format_ratio(9.996), "10.0");
  EXPECT_EQ(format_ratio(84.09), "84.1");
  EXPECT_EQ(format_ratio(99.96), "100");
  EXPECT_EQ(format_ratio(840.09), "840");
  EXPECT_EQ(format_ratio(1250.4), "1250");
  EXPECT_EQ(format_ratio(0.0995), "0.10");
  EXPECT_EQ(format_ratio(0.0123), "0.012");
  EXPECT_EQ(format_ratio(0.00012), "0.00012");
  EXPECT_EQ(format_ratio(0.00996), "0.010");
  EXPECT_EQ(format_ratio(1e-7), "<0.000001");
  EXPECT_EQ(format_ratio(0.0), "0");
}
TEST(FormatRatio, BelowATenthTwoSignificantDigitsNeverZero) {
  for (double r = 1e-6; r < 0.0995; r *= 1.07) {
    const std::string s = format_ratio(r);
    const auto first = s.find_first_of("123456789");
    ASSERT_NE(first, std::string::npos) << r;
    EXPECT_EQ(s.size() - first, 2u) << r << " -> " << s;  // two digits from the first that is not zero
  }
}
TEST(MdCell, EscapesPipes) { EXPECT_EQ(md_cell("a|b\nc"), "a\\|b c"); }
}  // namespace jitbench
