#include "export/compare_export.h"

#include <fmt/format.h>

#include "export/interference_text.h"
#include "util/build_info.h"

namespace jitbench {
using nlohmann::json;

namespace {
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}
}  // namespace

std::string compare_csv(const compare::Comparison& c) {
  std::string csv =
      "case,metric,n_base,n_new,base_median,new_median,ratio,ratio_ci_low,ratio_ci_high,p_value,hl_shift,verdict,"
      "base_interfered,base_runs,new_interfered,new_runs,rule,base_grade,new_grade,base_others_cpus,new_others_cpus\n";
  // base_interfered / new_interfered: runs the machine interfered with (docs/noise.md), empty when not reported;
  // base_grade / new_grade: quiet, busy, contended or not reported, and *_others_cpus the CPUs others took
  // (median over the side's runs; empty when not reported), docs/noise.md "Grades".
  const auto interfered = [](const InterferenceShare& s) {
    return s.reported == 0 ? std::string() : std::to_string(s.interfered);
  };
  const auto others = [](const InterferenceShare& s) {
    const auto m = s.others_cpus_median();
    return m ? fmt::format("{:.3g}", *m) : std::string();
  };
  for (const auto& r : c.rows)
    csv += fmt::format("{},{},{},{},{:.9g},{:.9g},{:.6g},{:.6g},{:.6g},{:.6g},{:.9g},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_escape(r.case_id), r.metric, r.n_base, r.n_new, r.base_median, r.new_median, r.ratio, r.lo,
                       r.hi, r.p, r.hl, csv_escape(r.verdict), interfered(r.base_interference),
                       r.base_interference.runs, interfered(r.new_interference), r.new_interference.runs,
                       compare::to_string(r.rule), grade_word(r.base_interference), grade_word(r.new_interference),
                       others(r.base_interference), others(r.new_interference));
  return csv;
}

json pyperf_suite(const std::vector<CaseResult>& cases, const std::string& description) {
  json benches = json::array();
  for (const auto& c : cases) {
    const auto add = [&](const std::string& name, const std::vector<std::vector<double>>& processes) {
      json runs = json::array();
      for (const auto& values : processes) runs.push_back({{"metadata", {{"loops", 1}}}, {"values", values}});
      if (!runs.empty()) benches.push_back({{"metadata", {{"name", c.c.id + name}, {"unit", "second"}}}, {"runs", runs}});
    };
    const auto samples = compare::metric_samples(c);
    std::vector<std::vector<double>> cold;
    if (auto it = samples.find("cold_ttfr_s"); it != samples.end())
      for (double v : it->second) cold.push_back({v});
    add(":cold_ttfr", cold);
    add(":warm_call", compare::warm_processes(c));
  }
  return {{"version", "1.0"},
          {"metadata", {{"description", description}, {"jitbench_version", jitbench_version()}}},
          {"benchmarks", benches}};
}

}  // namespace jitbench
