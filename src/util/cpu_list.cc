#include "util/cpu_list.h"

#include <algorithm>
#include <charconv>

namespace jitbench {
namespace {
// One CPU number, all of the text; false when it is not one.
bool cpu_number(std::string_view s, int& out) {
  if (s.empty() || s.size() > 5) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0 && out <= kMaxCpuNumber;
}
}  // namespace

std::variant<std::vector<int>, std::string> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<int> cpus;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) return std::string("a CPU list must not end in ','");
    const auto dash = item.find('-');
    int lo = 0, hi = 0;
    const bool ok = dash == std::string_view::npos
                        ? cpu_number(item, lo) && cpu_number(item, hi)
                        : cpu_number(item.substr(0, dash), lo) && cpu_number(item.substr(dash + 1), hi);
    if (!ok)
      return "'" + std::string(item) + "' is not a CPU number or range (CPUs are numbered 0 to " +
             std::to_string(kMaxCpuNumber) + "; a list reads like 0,2-3)";
    if (hi < lo) return "the range '" + std::string(item) + "' runs backwards (write LOW-HIGH)";
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace jitbench
