#include "export/interference_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "export/case_names.h"
#include "results/crosscheck.h"

namespace jitbench {

InterferenceShare case_interference(const CaseResult& c) {
  auto s = interference_share(c.cold);
  s += interference_share(c.warm);
  return s;
}

namespace {
std::string side_text(const InterferenceShare& s, const char* side) {
  return fmt::format("{}/{} {} run{}", s.interfered, s.runs, side, s.runs == 1 ? "" : "s");
}
}  // namespace

std::string case_interference_text(const CaseResult& c) {
  const auto cold = interference_share(c.cold), warm = interference_share(c.warm);
  std::string out;
  if (cold.any()) out = side_text(cold, "cold");
  if (warm.any()) out += (out.empty() ? "" : " and ") + side_text(warm, "warm");
  return out.empty() ? out : out + " interfered with";
}

std::string run_interference_line(const std::vector<CaseResult>& cases) {
  InterferenceShare all;
  for (const auto& c : cases) all += case_interference(c);
  if (all.runs == 0) return "No measured process.";
  const auto not_reported = all.runs - all.reported;
  constexpr const char* why = "(no readable /proc/stat, or recorded before jitbench measured it)";
  if (all.reported == 0)
    return fmt::format("Interference: not reported for any of the {} measured processes {}.", all.runs, why);
  std::string line = all.interfered == 0
                         ? fmt::format("No measured process was interfered with ({} measured).", all.reported)
                         : fmt::format("{} of {} measured processes were interfered with: the machine did other "
                                       "work beyond what the worker left idle, so their times may be slower for "
                                       "reasons outside the case.", all.interfered, all.reported);
  if (not_reported > 0) line += fmt::format(" Not reported for {} more {}.", not_reported, why);
  return line;
}

const char* const kInterferenceIntro =
    "what else the machine did while each worker ran: the CPU time of everything else against the capacity the "
    "worker left idle, and steal time (docs/noise.md). A flag beside the status, never part of it.";

std::string interference_section_md(const std::vector<CaseResult>& cases) {
  std::string md = "\n## Interference\n\n" + run_interference_line(cases) + "\n";
  // One line per distinct finding, naming its cases (a busy machine gives every case the same one).
  std::vector<std::pair<std::string, std::vector<std::string>>> found;
  for (const auto& c : cases) {
    auto text = case_interference_text(c);
    const auto x = crosscheck(c);
    if (x && x->interfered)
      text += (text.empty() ? "" : "; ") +
              std::string("its ahead-of-time cross-check disagreed on an interfered run (not a warning)");
    if (text.empty()) continue;
    auto it = std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.first == text; });
    if (it == found.end()) it = found.insert(found.end(), {text, {}});
    it->second.push_back(case_name_md(c.c));
  }
  std::string lines;
  for (const auto& [text, ids] : found) {
    constexpr std::size_t kNamed = 3;
    std::string who;
    for (std::size_t i = 0; i < std::min(ids.size(), kNamed); ++i) who += (i ? ", " : "") + ids[i];
    if (ids.size() > kNamed) who = fmt::format("{} cases ({}, …)", ids.size(), who);
    lines += fmt::format("- {}: {}\n", who, text);
  }
  return lines.empty() ? md : md + "\n" + lines;
}

}  // namespace jitbench
