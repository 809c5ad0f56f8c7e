#include "export/docs/interference_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "export/docs/case_names.h"
#include "results/crosscheck.h"

namespace jitbench {

InterferenceShare case_interference(const CaseResult& c) {
  auto s = interference_share(c.cold);
  s += interference_share(c.warm);
  return s;
}

std::string grade_word(const InterferenceShare& s) {
  const auto g = s.grade();
  return g ? grade_name(*g) : "not reported";
}

std::string grade_cell(const InterferenceShare& s) {
  const auto g = s.grade();
  if (!g) return "—";
  if (*g == InterferenceGrade::Quiet) return "quiet";
  return fmt::format("{} {:.1f}", grade_name(*g), *s.others_cpus_median());
}

namespace {
// "cold runs busy (others 1.1 of 2 CPUs; 3/10 interfered with)"; called for a
// side with interference, so with a grade and others' CPUs.
std::string side_text(const InterferenceShare& s, const char* side) {
  return fmt::format("{} run{} {} (others {:.1f} of {} CPUs; {}/{} interfered with)", side, s.runs == 1 ? "" : "s",
                     grade_word(s), s.others_cpus_median().value_or(0), s.n_cpus, s.interfered, s.runs);
}

// "2 busy, 1 contended" (the interfered processes by grade).
std::string interfered_grades(const InterferenceShare& s) {
  std::string out;
  if (s.busy > 0) out = fmt::format("{} busy", s.busy);
  if (s.contended > 0) out += fmt::format("{}{} contended", out.empty() ? "" : ", ", s.contended);
  return out;
}

// "others took 0.9–1.7 of 2 CPUs, median 1.2".
std::string others_range(const InterferenceShare& s) {
  const auto [lo, hi] = std::minmax_element(s.others_cpus.begin(), s.others_cpus.end());
  return fmt::format("others took {:.1f}–{:.1f} of {} CPUs, median {:.1f}", *lo, *hi, s.n_cpus,
                     *s.others_cpus_median());
}
}  // namespace

std::string case_interference_text(const CaseResult& c) {
  const auto cold = interference_share(c.cold), warm = interference_share(c.warm);
  std::string out;
  if (cold.any()) out = side_text(cold, "cold");
  if (warm.any()) out += (out.empty() ? "" : " and ") + side_text(warm, "warm");
  return out;
}

std::string run_interference_line(const std::vector<CaseResult>& cases) {
  InterferenceShare all;
  for (const auto& c : cases) all += case_interference(c);
  if (all.runs == 0) return "No measured process.";
  const auto not_reported = all.runs - all.reported;
  constexpr const char* why = "(no readable /proc/stat, or recorded before jitbench measured it)";
  if (all.reported == 0)
    return fmt::format("Interference: not reported for any of the {} measured processes {}.", all.runs, why);
  std::string line =
      all.interfered == 0
          ? fmt::format("Grade: quiet. No measured process was interfered with ({} measured; {}).", all.reported,
                        others_range(all))
          : fmt::format("Grade: {}. {} of {} measured processes were interfered with ({}; {}): the machine did "
                        "other work beyond what the worker left idle, so their times may be slower for reasons "
                        "outside the case.",
                        grade_word(all), all.interfered, all.reported, interfered_grades(all), others_range(all));
  if (not_reported > 0) line += fmt::format(" Not reported for {} more {}.", not_reported, why);
  return line;
}

const char* const kInterferenceIntro =
    "what else the machine did while each worker ran: the CPU time of everything else against the capacity the "
    "worker left idle, and steal time (docs/noise.md). Each process is graded quiet, busy (interfered with) or "
    "contended (others took three quarters of the CPUs or more, or steal took a quarter of one); a set of processes "
    "takes its median grade, shown with the CPUs others took. A flag beside the status, never part of it.";

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
