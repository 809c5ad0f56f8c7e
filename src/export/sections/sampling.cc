#include "export/sections/sampling.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/format.h"
#include "results/views.h"
#include "stats/sequential.h"

namespace jitbench {

const char* const kSamplingIntro =
    "How many processes each case got and why no more: a fixed count (`--cold-runs`, `--warm-runs`), or "
    "`--target-ci` adding processes until the median's interval was within its target (`target_reached`), up to "
    "`--max-runs` or `--max-time`. The interval is distribution-free (order statistics of the cold TTFRs, and of "
    "the warm processes' medians): the median lies in it with 95% probability whatever the distribution, under "
    "the rule's repeated looks too (docs/results-sampling.md). Fewer than 6 values give no such interval (—).";

namespace {
std::string rule_cell(const CaseResult& c) {
  const auto& s = c.sampling;
  if (!s.recorded) return "not recorded";
  if (!s.rule) return "fixed";
  return fmt::format("±{:g}%, {}–{} runs{}", s.rule->target_pct, s.rule->min_runs, s.rule->max_runs,
                     s.rule->max_time_s ? fmt::format(", ≤ {:g} s", *s.rule->max_time_s) : "");
}

std::string side_cell(const std::vector<double>& values, const std::string& stopped) {
  const auto w = stats::half_width_pct(values, stats::kReportConfidence);
  return fmt::format("{}{} · {}", values.size(), stopped.empty() ? "" : " (" + stopped + ")",
                     w ? fmt::format("±{:.1f}%", *w) : "—");
}
}  // namespace

std::string seconds_range(double lo, double hi) {
  const auto a = format_seconds(lo), b = format_seconds(hi);
  const auto unit = [](const std::string& s) { return s.substr(s.rfind(' ') + 1); };
  if (a.find(' ') != std::string::npos && unit(a) == unit(b)) return a.substr(0, a.rfind(' ')) + "–" + b;
  return a + "–" + b;
}

std::string spread_cell(const std::vector<double>& values) {
  if (values.empty()) return "—";
  if (values.size() == 1) return "n = 1";
  if (const auto ci = stats::order_statistic_median_ci(values, stats::kReportConfidence))
    return fmt::format("n = {}, 95% CI {}", values.size(), seconds_range(ci->low, ci->high));
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo == *hi) return fmt::format("n = {}, all {}", values.size(), format_seconds(*lo));
  return fmt::format("n = {}, range {}", values.size(), seconds_range(*lo, *hi));
}

bool all_fixed_counts(const std::vector<CaseResult>& cases) {
  return std::all_of(cases.begin(), cases.end(), [](const auto& c) { return c.sampling.recorded && !c.sampling.rule; });
}

std::string fixed_counts_sentence(const std::vector<CaseResult>& cases) {
  std::set<std::size_t> counts;
  for (const auto& c : cases)
    if (const auto n = cold_values(c, "ttfr_s").size()) counts.insert(n);
  std::string ns;
  for (auto n : counts) ns += fmt::format("{}{}", ns.empty() ? "" : ", ", n);
  return fmt::format("A fixed count of processes for every case ({} cold {}; `--target-ci` adds processes until the "
                     "median's interval is narrow enough). Fewer than 6 values give no distribution-free 95% "
                     "interval of the median, so the tables show n and the range instead "
                     "(docs/results-sampling.md).",
                     ns.empty() ? "no" : ns, ns == "1" ? "run" : "runs");
}

Table sampling_table(const std::vector<CaseResult>& cases) {
  Table t{{"Case", "Rule", "Cold runs (why no more) · 95% interval", "Warm processes (why no more) · 95% interval",
           "Warm calls per process"},
          {}};
  for (const auto& c : cases) {
    std::string calls = "—";
    if (!c.warm.empty()) {
      std::size_t lo = c.warm.front().calls_s.size(), hi = lo;
      for (const auto& w : c.warm) lo = std::min(lo, w.calls_s.size()), hi = std::max(hi, w.calls_s.size());
      calls = lo == hi ? std::to_string(lo) : fmt::format("{}–{}", lo, hi);
    }
    t.rows.push_back({{"`" + c.c.id + "`", rule_cell(c), side_cell(cold_values(c, "ttfr_s"), c.sampling.cold_stopped),
                       side_cell(warm_process_medians(c), c.sampling.warm_stopped), calls},
                      std::string(to_string(c.status)), c.c.id});
  }
  return t;
}

Section sampling_section(const SectionInput& in) {
  Section s;
  s.id = "sampling";
  s.heading = "Sampling";
  if (all_fixed_counts(in.cases)) {  // one sentence says all: no explanation, no table
    s.text = fixed_counts_sentence(in.cases);
    return s;
  }
  s.explanation = kSamplingIntro;
  s.table = sampling_table(in.cases);
  return s;
}

}  // namespace jitbench
