#include "export/report_doc.h"

#include <fmt/format.h>

#include <algorithm>

#include "export/figure_data.h"
#include "export/glance_table.h"
#include "export/interference_text.h"
#include "export/sampling_table.h"
#include "export/throughput_table.h"
#include "export/verification_table.h"
#include "report/format.h"
#include "report/table.h"
#include "stats/stats.h"

namespace jitbench {
namespace {

constexpr double kCvLimit = 0.10;  // coefficient of variation above which a case is flagged
constexpr std::size_t kFewRuns = 5;  // fewer cold runs than this: medians and CIs are rough


void case_warnings(const CaseResult& c, std::vector<ReportWarning>& out) {
  const auto ttfr = cold_values(c, "ttfr_s");
  if (c.status != Status::Ok) {
    const auto kind = c.reason.code == ReasonCode::InterpreterOnly ? "interpreter-only" : std::string(to_string(c.status));
    out.push_back({kind, c.c.id, to_string(c.reason) + (c.detail.empty() ? "" : ": " + c.detail)});
  }
  if (c.status == Status::Ok && ttfr.size() < kFewRuns)
    out.push_back({"few runs", c.c.id,
                   fmt::format("only {} cold runs: medians and intervals are rough (use --cold-runs {} or more)",
                               ttfr.size(), kFewRuns)});
  if (auto cv = stats::coefficient_of_variation(ttfr); cv && *cv > kCvLimit)
    out.push_back({"high variance", c.c.id, fmt::format("cold TTFR varies by {:.0f}% (coefficient of variation)", *cv * 100)});
  if (auto cv = stats::coefficient_of_variation(warm_values(c)); cv && *cv > kCvLimit)
    out.push_back({"high variance", c.c.id, fmt::format("warm calls vary by {:.0f}% (coefficient of variation)", *cv * 100)});
  if (auto text = case_interference_text(c); !text.empty())
    out.push_back({"interfered", c.c.id, text + ": the machine did other work beyond what the worker left idle "
                                                "(docs/noise.md)"});
}
}  // namespace

std::vector<ReportWarning> report_warnings(const std::vector<CaseResult>& cases, const Analysis& analysis) {
  std::vector<ReportWarning> out;
  for (const auto& c : cases) case_warnings(c, out);
  for (const auto& a : analysis.cases) {
    if (!a.crosscheck || a.crosscheck->agrees != false) continue;
    std::string steps;
    for (const auto& s : a.crosscheck->steps)
      if (!s.agrees)
        steps += fmt::format("{}{} {} (events) vs {} (ahead of time)", steps.empty() ? "" : ", ", s.step,
                             format_seconds(s.event_median_s), format_seconds(s.aot_s));
    if (a.crosscheck->interfered)
      out.push_back({"phases disagree (interfered)", a.c->c.id,
                     "the ahead-of-time cross-check disagrees on an interfered run, so it is not a warning: " + steps});
    else out.push_back({"phases disagree", a.c->c.id, "the ahead-of-time cross-check disagrees: " + steps});
  }
  if (std::any_of(cases.begin(), cases.end(), [](const auto& c) { return case_interference(c).any(); }))
    out.insert(out.begin(), {"interfered", "the run", run_interference_line(cases)});
  const auto few = std::count_if(out.begin(), out.end(), [](const auto& w) { return w.kind == "few runs"; });
  if (few > 3) {  // one line instead of one per case
    const auto first = *std::find_if(out.begin(), out.end(), [](const auto& w) { return w.kind == "few runs"; });
    std::erase_if(out, [](const auto& w) { return w.kind == "few runs"; });
    out.insert(out.begin(), {"few runs", fmt::format("{} cases", few), first.text});
  }
  return out;
}

namespace {
std::vector<std::pair<std::string, std::string>> environment_rows(const EnvironmentInfo& env,
                                                                  const std::vector<CaseResult>& cases) {
  std::string pkgs, policies;
  for (const auto& [k, v] : env.packages) pkgs += (pkgs.empty() ? "" : ", ") + k + " " + v;
  std::vector<std::string> seen;
  for (const auto& c : cases)
    if (std::string p(to_string(c.c.cache_policy)); std::find(seen.begin(), seen.end(), p) == seen.end()) seen.push_back(p);
  std::sort(seen.begin(), seen.end());
  for (const auto& p : seen) policies += (policies.empty() ? "" : ", ") + p;
  std::string gpus;
  for (const auto& g : env.gpus) gpus += (gpus.empty() ? "" : ", ") + g;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Machine", fmt::format("{} · {} logical CPUs · {:.1f} GiB · governor {}", env.cpu_model, env.logical_cores,
                              env.memory_total_gib, env.governor.empty() ? "n/a" : env.governor)},
      {"OS", fmt::format("{} · kernel {} · load {}", env.os, env.kernel, env.load_avg)},
      {"Python", fmt::format("{} ({})", env.python_version, env.python_executable)},
      {"Packages", pkgs},
      {"GPU", gpus.empty() ? "none (" + env.gpu_note + ")" : gpus},
      {"Cache modes", policies + " — every compile cache lives in the run's own cache/ dir"},
      {"Ceilings", ceilings_line(env.ceilings())},
      {"Captured", env.captured_at.empty() ? "—" : env.captured_at}};
  if (!env.affinity.empty()) rows.insert(rows.begin() + 1, {"Worker CPUs", env.affinity});
  if (!env.machine_warnings.empty()) {
    std::string warns;
    for (const auto& w : env.machine_warnings) warns += (warns.empty() ? "" : "; ") + w;
    rows.insert(rows.begin() + 1, {"Machine checks", "⚠ " + warns + " (jitbench doctor says what each means and what "
                                                                        "to do)"});
  }
  if (env.test_gpu_on_cpu)
    rows.insert(rows.begin(), {"Test run", fmt::format("{}=1, a test-only switch: the GPU backends ran on the CPU; no "
                                                       "number here is a GPU measurement", kTestGpuOnCpu)});
  return rows;
}

Table cases_table(const std::vector<CaseResult>& cases) {
  Table t{{"Case", "Status", "Matmul precision", "Cold TTFR", "n, interval or range", "Import", "First call", "Warm call",
           "Warm p95"},
          {}};
  for (const auto& c : cases) {
    const auto ttfr = stats::summarize(cold_values(c, "ttfr_s"));
    const auto warm = warm_values(c);
    const auto* w = c.first_worker_report();
    const auto status = std::string(to_string(c.status)) + (c.reason.empty() ? "" : ": " + to_string(c.reason));
    t.rows.push_back({{md_code(c.c.id), status, w && w->matmul_precision ? *w->matmul_precision : "—",
                       ttfr ? format_seconds(ttfr->median) : "—",
                       spread_cell(cold_values(c, "ttfr_s")),  // the Sampling section's rule
                       format_seconds(stats::median(cold_values(c, "import_s"))), format_seconds(stats::median(cold_values(c, "first_call_s"))),
                       format_seconds(stats::median(warm)), format_seconds(stats::percentile(warm, 95))},
                      std::string(to_string(c.status)), c.c.id});
  }
  return t;
}

constexpr const char* kIntro =
    "**Cold TTFR** (time to first result) = importing the framework and initialising its device + building the "
    "inputs + the first synchronized call, in a fresh process. **Warm call** = one synchronized call once "
    "everything is compiled. **N*** = the number of further calls after which a JIT's compile time has paid for "
    "itself against the eager baseline (the same framework without its JIT on the same device when the run has "
    "it, else NumPy). Medians over the cold runs, beside them n and the distribution-free 95% interval where there are 6 runs or "
    "more, else their range (Sampling); every result was checked against a "
    "float64 reference.";

constexpr const char* kCss =
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\n"
    "table{border-collapse:collapse;font-size:13px;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px "
    "7px;text-align:left}#cases td{white-space:nowrap}\nth{background:#f4f4f4}tr.warn td{background:#fff8e1}"
    "tr.failed td{background:#fdecea}code{font-size:12px}\n.fig{margin:1em 0 2em}.fig "
    "svg{max-width:100%;height:auto}.note{color:#555;font-size:13px}\ndetails{margin:.4em 0;font-size:13px}"
    "summary{cursor:pointer}";

std::string group_note(const std::string& kind) {
  if (kind == "high variance")
    return fmt::format("coefficient of variation above {:.0f}%: read these medians with their intervals", kCvLimit * 100);
  return fmt::format("fewer than {} cold runs: medians and intervals are rough", kFewRuns);
}

std::string warnings_html(const std::vector<ReportWarning>& warns) {
  Table single{{"Kind", "Case", "What"}, {}};
  std::vector<std::pair<std::string, Table>> grouped_tables;
  for (const auto& w : warns) {
    if (w.kind != "high variance" && w.kind != "few runs") {
      single.add({w.kind, md_code(w.case_id), w.text});
      continue;
    }
    auto it = std::find_if(grouped_tables.begin(), grouped_tables.end(), [&](const auto& g) { return g.first == w.kind; });
    if (it == grouped_tables.end()) it = grouped_tables.insert(grouped_tables.end(), {w.kind, Table{{"Case", "What"}, {}}});
    it->second.add({md_code(w.case_id), w.text});
  }
  std::string out = fmt::format("<section id='warnings'><h2>Warnings ({})</h2>", warns.size());
  if (!single.empty()) out += to_html(single);
  for (const auto& [kind, t] : grouped_tables)
    out += fmt::format("<details><summary><b>{}</b>: {} {} — {}</summary>{}</details>", html_escape(kind),
                       t.rows.size(), t.rows.size() == 1 ? "entry" : "entries", html_escape(group_note(kind)), to_html(t));
  if (warns.empty()) out += "<p>None: every case ran cleanly, with enough runs and low variance.</p>";
  return out + "</section>";
}
}  // namespace

std::string report_html(const LoadedRun& run, const Analysis& analysis, const std::map<std::string, std::string>& svgs) {
  std::string page = fmt::format("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>jitbench "
                                 "report</title><style>{}</style></head><body>\n<h1>jitbench report</h1>\n"
                                 "<p class='note'>{}</p>\n",
                                 kCss, inline_html(kIntro));
  std::string command;
  for (const auto& a : run.index.command) command += (command.empty() ? "" : " ") + a;
  if (!command.empty()) page += "<p class='note'>Command: <code>" + html_escape(command) + "</code></p>\n";
  if (const auto glance = glance_table(run.cases, analysis); !glance.empty())
    page += "<section id='glance'><h2>At a glance</h2>" + to_html(glance) +
            "<p class='note'>Only ok cases; the figures and the full table follow.</p></section>\n";
  Table env{{"", ""}, {}};
  for (const auto& [k, v] : environment_rows(run.environment, run.cases)) env.add({"**" + k + "**", v});
  page += "<section id='environment'><h2>Environment</h2>" + to_html(env) + "</section>\n";
  page += warnings_html(report_warnings(run.cases, analysis)) + "\n";
  if (const auto t = throughput_table(analysis); !t.empty())
    page += "<section id='throughput'><h2>Throughput against the floor and the ceiling</h2><p class='note'>" +
            inline_html(kThroughputIntro) + "</p>" + to_html(t) + "</section>\n";
  for (const auto& f : report_figures())
    if (auto it = svgs.find(f.key); it != svgs.end())
      page += fmt::format("<section class='fig' id='fig-{}'><h2>{}</h2><p class='note'>{}</p>{}</section>\n", f.key,
                          html_escape(f.title), html_escape(f.note), it->second);
  page += fmt::format("<section id='cases'><h2>Cases ({})</h2>{}<p class='note'>A warn case's timings "
                      "(interpreter_only) are shown for what they are, drawn in the figures with a red ⚠ mark, and "
                      "left out of every comparison; a warning about the phase split alone (crosscheck_*) leaves "
                      "its times measured and compared."
                      "</p></section>\n",
                      run.cases.size(), to_html(cases_table(run.cases)));
  page += "<section id='sampling'><h2>Sampling</h2><p class='note'>" + inline_html(kSamplingIntro) + "</p>" +
          to_html(sampling_table(run.cases)) + "</section>\n";
  if (const auto t = verification_table(run.cases); !t.empty())
    page += "<section id='verification'><h2>Verification</h2><p class='note'>" + inline_html(kVerificationIntro) +
            "</p>" + to_html(t) + "</section>\n";
  page += "</body></html>\n";
  return page;
}

std::string report_md(const LoadedRun& run, const Analysis& analysis, const std::map<std::string, std::string>& svgs) {
  std::string md = "# jitbench report\n\n";
  if (const auto glance = glance_table(run.cases, analysis); !glance.empty()) md += "## At a glance\n\n" + to_markdown(glance) + "\n";
  md += "## Environment\n\n";
  for (const auto& [k, v] : environment_rows(run.environment, run.cases)) md += fmt::format("- **{}**: {}\n", k, v);
  const auto warns = report_warnings(run.cases, analysis);
  md += fmt::format("\n## Warnings ({})\n\n", warns.size());
  for (const auto& w : warns) md += fmt::format("- {} — `{}`: {}\n", w.kind, w.case_id, md_cell(w.text));
  if (warns.empty()) md += "None.\n";
  if (const auto t = throughput_table(analysis); !t.empty())
    md += fmt::format("\n## Throughput against the floor and the ceiling\n\n{}\n\n", kThroughputIntro) +
          to_markdown(t);
  md += fmt::format("\n## Cases ({})\n\n", run.cases.size()) + to_markdown(cases_table(run.cases));
  md += fmt::format("\n## Sampling\n\n{}\n\n", kSamplingIntro) + to_markdown(sampling_table(run.cases));
  if (const auto t = verification_table(run.cases); !t.empty())
    md += fmt::format("\n## Verification\n\n{}\n\n", kVerificationIntro) + to_markdown(t);
  std::string titles;
  for (const auto& f : report_figures())
    if (svgs.count(f.key)) titles += (titles.empty() ? "" : ", ") + f.title;
  return md + "\nFigures (in report.html): " + titles + "\n";
}

}  // namespace jitbench
