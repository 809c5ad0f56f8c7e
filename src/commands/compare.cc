// `jitbench compare BASE NEW`: pairs cases by id and, per metric, reports the
// ratio of medians with a bootstrap CI, a Mann-Whitney U test and the
// Hodges-Lehmann shift; a geometric-mean summary; added, removed and
// status-changed cases. Exports CSV and pyperf JSON (readable by
// `python -m pyperf compare_to`).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands/commands.h"
#include "compare/stats_tests.h"
#include "report/format.h"
#include "stats/stats.h"
#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct RunData {
  std::string dir;
  json index;
  std::map<std::string, json> cases;  // id -> case document
  std::vector<std::string> order;
};

RunData load_run(const std::string& dir, const char* which) {
  require_valid_run(dir, which);
  RunData r;
  r.dir = dir;
  std::ifstream in(fs::path(dir) / "index.json");
  r.index = json::parse(in);
  for (const auto& c : r.index["cases"]) {
    std::ifstream cf(fs::path(dir) / c["path"].get<std::string>());
    const auto id = c["case"].get<std::string>();
    r.cases[id] = json::parse(cf);
    r.order.push_back(id);
  }
  return r;
}

// The warm calls of each ok warm process. Artifacts written before
// --warm-runs existed have one warm process, under "run".
std::vector<std::vector<double>> warm_processes(const json& c) {
  std::vector<std::vector<double>> out;
  const auto& w = c["warm"];
  if (!w.is_object()) return out;
  json runs = w.contains("runs") ? w["runs"] : json::array({w["run"]});
  for (const auto& run : runs)
    if (run.is_object() && run["status"] == "ok" && run["calls_s"].is_array() && !run["calls_s"].empty())
      out.push_back(run["calls_s"].get<std::vector<double>>());
  return out;
}

// Samples of one metric from a case's ok runs, one value per process: the
// cold metrics from each cold process, and the median warm call of each warm
// process. Warm calls of one process are not independent samples of the
// code's speed (two runs of the same code gave per-case warm ratios from
// 0.45 to 1.76 here: memory layout, thread placement, clock), so they are
// never pooled into the test.
using Samples = std::map<std::string, std::vector<double>>;
Samples metric_samples(const json& c) {
  Samples out;
  for (const auto& run : c["cold"]["runs"]) {
    if (run["status"] != "ok") continue;
    for (const char* k : {"ttfr_s", "import_s", "first_call_s"})
      if (run[k].is_number()) out[std::string("cold_") + k].push_back(run[k].get<double>());
    const auto& b = run["first_call_breakdown"];
    if (b.is_object() && b["phases"].is_object())
      for (const auto& [name, v] : b["phases"].items())
        if (v.is_number()) out["phase_" + name + "_s"].push_back(v.get<double>());
    if (run["rusage"].is_object() && run["rusage"]["max_rss_kib"].is_number())
      out["peak_rss_kib"].push_back(run["rusage"]["max_rss_kib"].get<double>());
  }
  for (const auto& calls : warm_processes(c))
    if (auto m = stats::median(calls)) out["warm_call_s"].push_back(*m);
  return out;
}

struct Row {
  std::string case_id, metric, verdict;
  std::size_t n_base = 0, n_new = 0;
  double base_median = 0, new_median = 0, ratio = 0, lo = 0, hi = 0, p = 1, hl = 0;
  bool testable = true;  // enough runs for the test to reach alpha
};

std::string fmt_value(const std::string& metric, double v) {
  return metric == "peak_rss_kib" ? fmt::format("{:.1f} MiB", v / 1024.0) : format_seconds(v);
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// pyperf's JSON format (version 1.0): a suite of benchmarks, each with runs;
// a cold run is one process with one value, a warm run one process with its
// warm calls.
json pyperf_suite(const RunData& r) {
  json benches = json::array();
  for (const auto& id : r.order) {
    const auto& c = r.cases.at(id);
    const auto add = [&](const std::string& name, const std::vector<std::vector<double>>& processes) {
      json runs = json::array();
      for (const auto& values : processes) runs.push_back({{"metadata", {{"loops", 1}}}, {"values", values}});
      if (!runs.empty()) benches.push_back({{"metadata", {{"name", id + name}, {"unit", "second"}}}, {"runs", runs}});
    };
    const auto samples = metric_samples(c);
    std::vector<std::vector<double>> cold;
    if (auto it = samples.find("cold_ttfr_s"); it != samples.end())
      for (double v : it->second) cold.push_back({v});
    add(":cold_ttfr", cold);
    add(":warm_call", warm_processes(c));
  }
  return {{"version", "1.0"},
          {"metadata", {{"description", "jitbench run " + r.dir}, {"jitbench_version", JITBENCH_VERSION}}},
          {"benchmarks", benches}};
}

void write_or_fail(const std::string& path, const std::string& text) {
  try {
    write_file_atomic(path, text);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("cannot write '{}': {}", path, e.what()));
  }
}

}  // namespace

int cmd_compare(const CompareOptions& o) {
  const RunData base = load_run(o.base, "BASE");
  const RunData next = load_run(o.next, "NEW");

  std::vector<std::string> added, removed, changed;
  for (const auto& id : next.order)
    if (!base.cases.count(id)) added.push_back(id);
  for (const auto& id : base.order) {
    if (!next.cases.count(id)) {
      removed.push_back(id);
      continue;
    }
    const auto& a = base.cases.at(id);
    const auto& b = next.cases.at(id);
    if (a["status"] != b["status"])
      changed.push_back(fmt::format("{}: {} -> {}{}", id, a["status"].get<std::string>(), b["status"].get<std::string>(),
                                    b["reason"].is_string() ? " (" + b["reason"].get<std::string>() + ")" : ""));
  }

  std::vector<Row> rows;
  std::map<std::string, std::vector<double>> log_ratios;  // metric -> log ratios, for the geometric mean
  bool few_runs = false;
  for (const auto& id : base.order) {
    if (!next.cases.count(id)) continue;
    const auto& a = base.cases.at(id);
    const auto& b = next.cases.at(id);
    if (a["status"] != "ok" || b["status"] != "ok") continue;
    const auto sa = metric_samples(a), sb = metric_samples(b);
    for (const auto& [metric, xa] : sa) {
      auto it = sb.find(metric);
      if (it == sb.end() || xa.empty() || it->second.empty()) continue;
      const auto& xb = it->second;
      const auto ratio = compare::ratio_of_medians(xa, xb);
      const auto mw = compare::mann_whitney(xa, xb);
      if (!ratio || !mw) continue;
      Row r;
      r.case_id = id;
      r.metric = metric;
      r.n_base = xa.size();
      r.n_new = xb.size();
      r.base_median = *stats::median(xa);
      r.new_median = *stats::median(xb);
      r.ratio = ratio->ratio;
      r.lo = ratio->lo;
      r.hi = ratio->hi;
      r.p = mw->p_value;
      r.hl = compare::hodges_lehmann(xa, xb).value_or(0);
      r.testable = compare::min_possible_p(xa.size(), xb.size()) <= o.alpha;
      few_runs = few_runs || !r.testable;
      if (!r.testable) r.verdict = "too few runs";
      else if (r.p >= o.alpha) r.verdict = "no significant change";
      else r.verdict = r.ratio > 1 ? "slower" : "faster";
      if (metric == "peak_rss_kib" && r.verdict == "slower") r.verdict = "larger";
      if (metric == "peak_rss_kib" && r.verdict == "faster") r.verdict = "smaller";
      log_ratios[metric].push_back(std::log(r.ratio));
      rows.push_back(r);
    }
  }

  fmt::print("jitbench compare: BASE {} ({} cases) vs NEW {} ({} cases)\n\n", o.base, base.order.size(), o.next,
             next.order.size());
  fmt::print("{:<48} {:<22} {:>12} {:>12} {:>24} {:>9} {:>12}  {}\n", "case", "metric", "base", "new",
             "ratio [95% CI]", "p (MWU)", "HL shift", "verdict");
  for (const auto& r : rows) {
    const std::string hl = r.metric == "peak_rss_kib" ? fmt::format("{:+.1f} MiB", r.hl / 1024.0)
                                                       : (r.hl < 0 ? "-" : "+") + format_seconds(std::abs(r.hl));
    fmt::print("{:<48} {:<22} {:>12} {:>12} {:>24} {:>9.3g} {:>12}  {}\n", r.case_id, r.metric,
               fmt_value(r.metric, r.base_median), fmt_value(r.metric, r.new_median),
               fmt::format("{:.3f} [{:.3f}–{:.3f}]", r.ratio, r.lo, r.hi), r.p, hl, r.verdict);
  }
  // Many metrics are tested at once: say how many verdicts chance alone gives.
  int tested = 0, differ = 0;
  for (const auto& r : rows)
    if (r.testable) {
      ++tested;
      differ += r.p < o.alpha;
    }
  if (tested > 0)
    fmt::print("\n{} of {} tested metrics differ at p < {:g}; if nothing had changed, about {:.1f} would by chance.\n",
               differ, tested, o.alpha, o.alpha * tested);
  fmt::print("\nGeometric mean of NEW/BASE ratios over the cases both runs measured:\n");
  for (const auto& [metric, lr] : log_ratios) {
    double s = 0;
    for (double x : lr) s += x;
    fmt::print("  {:<22} {:.3f} over {} cases\n", metric, std::exp(s / double(lr.size())), lr.size());
  }
  const auto list = [](const char* title, const std::vector<std::string>& v) {
    if (v.empty()) return;
    fmt::print("\n{} ({}):\n", title, v.size());
    for (const auto& x : v) fmt::print("  {}\n", x);
  };
  list("Added in NEW", added);
  list("Removed in NEW", removed);
  list("Status changed", changed);
  if (few_runs)
    fmt::print(stderr,
               "jitbench compare: warning: some metrics have too few runs for the Mann-Whitney test to reach "
               "p < {:g} (marked 'too few runs'; at 0.05 that takes 4+ processes a side): run with more --cold-runs / "
               "--warm-runs\n",
               o.alpha);

  if (!o.csv.empty()) {
    std::string csv = "case,metric,n_base,n_new,base_median,new_median,ratio,ratio_ci_low,ratio_ci_high,p_value,hl_shift,verdict\n";
    for (const auto& r : rows)
      csv += fmt::format("{},{},{},{},{:.9g},{:.9g},{:.6g},{:.6g},{:.6g},{:.6g},{:.9g},{}\n", csv_escape(r.case_id),
                         r.metric, r.n_base, r.n_new, r.base_median, r.new_median, r.ratio, r.lo, r.hi, r.p, r.hl,
                         csv_escape(r.verdict));
    write_or_fail(o.csv, csv);
  }
  if (!o.pyperf_base.empty()) {
    for (const auto& [run, suffix] : {std::pair{&base, "base"}, std::pair{&next, "new"}}) {
      const auto path = fmt::format("{}.{}.json", o.pyperf_base, suffix);
      write_or_fail(path, pyperf_suite(*run).dump(1) + "\n");
    }
  }

  if (o.fail_on_regression_pct) {
    const double limit = 1.0 + *o.fail_on_regression_pct / 100.0;
    int bad = 0;
    for (const auto& r : rows)
      if (compare::exceeds_regression_limit(r.testable, r.p, o.alpha, r.lo, limit)) {
        fmt::print(stderr, "regression: {} {} is {:.1f}% worse (ratio 95% CI [{:.3f}–{:.3f}], above {:.3f}; p = {:.3g})\n",
                   r.case_id, r.metric, (r.ratio - 1) * 100, r.lo, r.hi, limit, r.p);
        ++bad;
      }
    if (bad > 0) {
      fmt::print(stderr, "jitbench compare: {} significant regression(s) above {:g}%\n", bad, *o.fail_on_regression_pct);
      return 1;
    }
  }
  return 0;
}

}  // namespace jitbench
