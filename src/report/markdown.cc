#include "report/markdown.h"

#include <fmt/format.h>

#include "report/format.h"
#include "results/json.h"
#include "stats/stats.h"

namespace jitbench {
namespace {

std::string median_with_ci(const std::vector<double>& xs) {
  auto s = stats::summarize(xs);
  if (!s) return "—";
  if (s->n < 2) return format_seconds(s->median);
  return fmt::format("{} [{} – {}]", format_seconds(s->median), format_seconds(s->median_ci95.low),
                     format_seconds(s->median_ci95.high));
}

std::string median_of(const std::vector<double>& xs) { return format_seconds(stats::median(xs)); }

// A string at a JSON pointer, or fallback when absent or not a string.
std::string str_at(const nlohmann::json& j, const char* pointer, const std::string& fallback = "") {
  const auto ptr = nlohmann::json::json_pointer(pointer);
  return j.contains(ptr) && j.at(ptr).is_string() ? j.at(ptr).get<std::string>() : fallback;
}

std::string env_line(const nlohmann::json& env) {
  if (!env.is_object()) return "";
  std::string pkgs;
  const auto packages_ptr = nlohmann::json::json_pointer("/python/packages");
  if (env.contains(packages_ptr))
    for (const auto& [k, v] : env.at(packages_ptr).items())
      if (v.is_string()) pkgs += fmt::format("{}{} {}", pkgs.empty() ? "" : ", ", k, v.get<std::string>());
  const auto cores_ptr = nlohmann::json::json_pointer("/host/cpu/logical_cores");
  return fmt::format("{} · {} logical cores · {} · Python {} · {}", str_at(env, "/host/cpu/model", "unknown CPU"),
                     env.contains(cores_ptr) ? env.at(cores_ptr).dump() : "?", str_at(env, "/host/os"),
                     str_at(env, "/python/version"), pkgs);
}
}  // namespace

std::string markdown_summary(const RunInfo& info, const std::vector<CaseResult>& cases) {
  std::string md = fmt::format("# jitbench: suite `{}`\n\n", info.suite_name);
  md += fmt::format("Command: `{}`  \nSuite: `{}` · {} of {} cases measured  \nMachine: {}\n\n", info.command,
                    info.suite_source, cases.size(), info.n_planned, env_line(info.environment));
  md += "**Cold TTFR** (time to first result) = import and device initialisation + building the inputs + the "
        "first synchronized call, in a fresh process with an empty compile cache; **process TTFR** adds the "
        "interpreter's own start-up. **Warm call** = one synchronized call once the function is compiled. "
        "Medians with bootstrap 95% confidence intervals over the cold runs.\n\n";
  md += "| Case | Status | Cold TTFR (median, 95% CI) | Process TTFR | Import | First call | Second call | Warm call (median) | Warm p95 | Cold runs |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases) {
    const auto warm = warm_values(c);
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.c.id, to_string(c.status),
                      median_with_ci(cold_values(c, "ttfr_s")), median_of(cold_values(c, "process_ttfr_s")),
                      median_of(cold_values(c, "import_s")), median_of(cold_values(c, "first_call_s")),
                      median_of(cold_values(c, "second_call_s")), median_of(warm),
                      format_seconds(stats::percentile(warm, 95)), cold_values(c, "ttfr_s").size());
  }
  std::string notes;
  for (const auto& c : cases) {
    if (c.status == Status::Ok) continue;
    notes += fmt::format("- `{}` — **{}**: {}{}\n", c.c.id, to_string(c.status), md_cell(c.reason),
                         c.detail.empty() ? "" : " — " + md_cell(c.detail));
  }
  if (!notes.empty()) md += "\n## Cases that did not run cleanly\n\n" + notes;
  std::string few;
  for (const auto& c : cases) {
    auto cv = stats::coefficient_of_variation(cold_values(c, "ttfr_s"));
    if (cv && *cv > 0.10) few += fmt::format("- `{}`: cold TTFR varies by {:.0f}% (coefficient of variation)\n", c.c.id, *cv * 100);
  }
  if (!few.empty()) md += "\n## High variance\n\n" + few;
  return md;
}

}  // namespace jitbench
