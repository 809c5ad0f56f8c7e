#include "export/json/compare_export.h"

#include <fmt/format.h>

#include <cmath>

#include "export/docs/interference_text.h"
#include "export/json/json_util.h"
#include "report/format.h"
#include "report/table.h"
#include "results/interference.h"
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

namespace jitbench {
namespace {
json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

const char* rule_name(compare::MetricRule r) { return r == compare::MetricRule::Spread ? "spread" : "test"; }

json gated_measured_json(const compare::MetricRow& r) {
  return {{"n_base", r.n_base}, {"n_new", r.n_new}, {"base_median", finite_or_null(r.base_median)},
          {"new_median", finite_or_null(r.new_median)}, {"ratio", finite_or_null(r.ratio)},
          {"ratio_ci_low", finite_or_null(r.lo)}, {"ratio_ci_high", finite_or_null(r.hi)},
          {"p_value", r.rule == compare::MetricRule::Spread ? json(nullptr) : finite_or_null(r.p)},
          {"verdict", r.verdict}, {"base_grade", grade_word(r.base_interference)},
          {"new_grade", grade_word(r.new_interference)}};
}

json gated_row_json(const compare::GatedRow& g) {
  json row = {{"case", g.row.case_id}, {"metric", g.row.metric}, {"rule", rule_name(g.row.rule)}};
  row.update(gated_measured_json(g.row));
  row["base_others_cpus"] = number_or_null(g.row.base_interference.others_cpus_median());
  row["new_others_cpus"] = number_or_null(g.row.new_interference.others_cpus_median());
  row["gate"] = g.gate == compare::RowGate::None ? json(nullptr) : json(compare::to_string(g.gate));
  row["remeasured"] = g.remeasured ? gated_measured_json(*g.remeasured) : json(nullptr);
  return row;
}

std::string gated_ratio_cell(const compare::MetricRow& r) {
  return r.rule == compare::MetricRule::Spread ? fmt::format("{:.4f} [{:.4f}–{:.4f}]*", r.ratio, r.lo, r.hi)
                                               : fmt::format("{:.3f} [{:.3f}–{:.3f}]", r.ratio, r.lo, r.hi);
}

}  // namespace

std::string metric_value_text(const std::string& metric, double v) {
  switch (compare::metric_info(metric).kind) {
    case compare::MetricKind::Memory: return fmt::format("{:.1f} MiB", v / 1024.0);
    case compare::MetricKind::Instructions: return format_count(v);
    case compare::MetricKind::Time: break;
  }
  return format_seconds(v);
}

std::string compare_json(const compare::GateVerdict& v) {
  json rows = json::array();
  for (const auto& g : v.rows) rows.push_back(gated_row_json(g));
  json remeasure = nullptr;
  if (v.remeasure_dir) remeasure = {{"dir", *v.remeasure_dir}, {"cases", v.remeasured_cases}};
  json doc = {{"schema", "jitbench.compare.v1"}, {"base", v.base}, {"new", v.next},
                    {"threshold_pct", number_or_null(v.threshold_pct)}, {"alpha", v.alpha},
                    {"exit_code", v.exit_code}, {"remeasure", remeasure},
                    {"cannot_remeasure", v.cannot_remeasure ? json(*v.cannot_remeasure) : json(nullptr)},
                    {"rows", rows}, {"worsened", v.worsened}, {"removed", v.removed}, {"added", v.added}};
  if (v.nothing_compared) doc["reason"] = *v.nothing_compared;
  if (!v.not_compared.empty()) doc["not_compared"] = v.not_compared;
  return json_text(doc);
}

std::string verdict_line(const compare::GateVerdict& v) {
  if (!v.threshold_pct) return fmt::format("jitbench compare: {} row(s) compared; no gate (--fail-on-regression not given)", v.rows.size());
  int failing = 0, cleared = 0, counts = 0;
  for (const auto& g : v.rows) {
    failing += compare::fails(g.gate);
    cleared += g.gate == compare::RowGate::Cleared;
    counts += g.gate == compare::RowGate::LeftToCounts;
  }
  std::string extra;
  if (cleared) extra += fmt::format("; {} cleared by re-measurement", cleared);
  if (counts) extra += fmt::format("; {} left to instruction counts", counts);
  if (v.exit_code == 0)
    return fmt::format("jitbench compare: passed: no regression above {:g}%{}", *v.threshold_pct, extra);
  return fmt::format("jitbench compare: failed: {} regression(s) above {:g}%, {} case(s) with a worse status, {} "
                     "case(s) missing in NEW{}", failing, *v.threshold_pct, v.worsened.size(), v.removed.size(), extra);
}

std::string compare_markdown(const compare::GateVerdict& v) {
  Table t;
  t.columns = {"case", "metric", "base", "new", "ratio [95% CI]", "grade B, N", "verdict", "gate"};
  for (const auto& g : v.rows) {
    const auto& r = g.row;
    std::string gate = compare::to_string(g.gate);
    if (g.remeasured) gate += fmt::format(" (re-measured: {})", gated_ratio_cell(*g.remeasured));
    t.add({"`" + md_cell(r.case_id) + "`", "`" + r.metric + "`", metric_value_text(r.metric, r.base_median),
           metric_value_text(r.metric, r.new_median), gated_ratio_cell(r),
           md_cell(r.base_interference.grade_text() + ", " + r.new_interference.grade_text()),
           md_cell(r.verdict), gate.empty() ? "—" : md_cell(gate)});
  }
  std::string out = fmt::format("### jitbench compare: `{}` vs `{}`\n\n", md_cell(v.base), md_cell(v.next));
  out += t.empty() ? std::string("No metric in common.\n") : to_markdown(t);
  const auto list = [&](const char* title, const std::vector<std::string>& xs) {
    if (xs.empty()) return;
    out += fmt::format("\n{} ({}):\n", title, xs.size());
    for (const auto& x : xs) out += fmt::format("- `{}`\n", md_cell(x));
  };
  list("Status got worse", v.worsened);
  list("Missing in NEW", v.removed);
  list("Added in NEW", v.added);
  if (v.remeasure_dir)
    out += fmt::format("\nRe-measured {} case(s) side by side, interleaved, into `{}`.\n", v.remeasured_cases.size(),
                       md_cell(*v.remeasure_dir));
  if (v.cannot_remeasure) out += fmt::format("\nCannot re-measure BASE: {}\n", md_cell(*v.cannot_remeasure));
  return out + "\n**" + md_cell(verdict_line(v)) + "**\n";
}

}  // namespace jitbench
