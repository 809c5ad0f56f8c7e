#include "report/format.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace jitbench {
std::string format_seconds(double s) {
  if (!(s > 0)) return "—";
  if (s < 1e-3) return fmt::format("{:.1f} µs", s * 1e6);
  if (s < 1.0) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}
std::string format_seconds(const std::optional<double>& s) { return s ? format_seconds(*s) : "—"; }
std::string format_ratio(double r) {
  if (!std::isfinite(r) || r <= 0) return fmt::format("{}", r);
  if (r >= 99.95) return fmt::format("{:.0f}", r);
  if (r >= 9.995) return fmt::format("{:.1f}", r);
  if (r >= 0.0995) return fmt::format("{:.2f}", r);
  // Below 0.1, two significant digits ("0.012"; 0.00996 is "0.010"), down to 0.000001.
  if (r < 1e-6) return "<0.000001";
  int decimals = 1 - static_cast<int>(std::floor(std::log10(r)));
  if (std::stod(fmt::format("{:.{}f}", r, decimals)) * std::pow(10.0, decimals - 1) >= 10.0) --decimals;
  return fmt::format("{:.{}f}", r, decimals);
}
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
std::string format_count(double n) {
  if (!(n >= 0)) return "—";
  static constexpr std::pair<double, const char*> kScales[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, prefix] : kScales)
    if (n >= scale) {
      const double v = n / scale;
      return fmt::format("{:.{}f} {}", v, v >= 100 ? 1 : v >= 10 ? 2 : 3, prefix);
    }
  return fmt::format("{:.0f}", n);
}

}  // namespace jitbench
