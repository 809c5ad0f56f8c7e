#include "report/format.h"

#include <algorithm>

#include <fmt/format.h>

namespace jitbench {
std::string format_seconds(double s) {
  if (!(s > 0)) return "—";
  if (s < 1e-3) return fmt::format("{:.1f} µs", s * 1e6);
  if (s < 1.0) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}
std::string format_seconds(const std::optional<double>& s) { return s ? format_seconds(*s) : "—"; }
std::string md_code(const std::string& s) { return "`" + s + "`"; }
std::string md_literal(const std::string& s) {
  std::string text;
  std::size_t run = 0, longest = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c == '\n') text += "\\n";
    else if (c == '\r') text += "\\r";
    else text += c;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}
std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}
}  // namespace jitbench
