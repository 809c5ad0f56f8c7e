#pragma once
#include <optional>
#include <string>

namespace jitbench {
// The ML-suite contract's time format: <= 0 -> "—", < 1 ms -> µs (1 decimal),
// < 1 s -> ms (2 decimals), else s (3 decimals).
std::string format_seconds(double s);
std::string format_seconds(const std::optional<double>& s);
// An instruction count with an SI prefix and 4 significant digits: "892.1 M",
// "1.570 G", "65.02 k", "812" (< 0 -> "—").
std::string format_count(double n);
// A ratio with no more digits than a step is known to, no exponent: two
// decimals below 10 ("0.87", "3.33"), one below 100 ("84.1"), none above
// ("840", not "840.09"); below 0.1 two significant digits ("0.012"), and
// "<0.000001" below that.
std::string format_ratio(double r);
// `s`: code in Markdown.
std::string md_code(const std::string& s);
// Text from a user (a command line, a label) as one Markdown code span that
// nothing in it can end: a fence longer than any run of backticks inside, line
// breaks shown as \n (a new line would start a heading or a list).
std::string md_literal(const std::string& s);
// Markdown table cell: escapes '|'.
std::string md_cell(const std::string& s);
}  // namespace jitbench
