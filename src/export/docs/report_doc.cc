#include "export/docs/report_doc.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <variant>

#include "export/docs/case_names.h"
#include "export/docs/figure_data.h"
#include "export/docs/glance_table.h"
#include "export/docs/interference_text.h"
#include "export/docs/table_json.h"
#include "export/sections/section.h"
#include "export/sections/sampling.h"
#include "export/sections/throughput.h"
#include "export/sections/verification.h"
#include "report/format.h"
#include "report/table.h"
#include "results/anatomy.h"
#include "results/read.h"
#include "export/sections/counts.h"
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
std::string packages_text(const EnvironmentInfo& env) {
  std::string pkgs;
  for (const auto& [k, v] : env.packages) pkgs += (pkgs.empty() ? "" : ", ") + k + " " + v;
  return pkgs;
}

// The interpreters the cases ran in: jitbench's own where a case ran in it,
// and each pinned environment (--env, [[environments]]) by name, read from its
// manifest (environments/env-<name>.json) -- not the launching interpreter's
// packages for a run that measured others.
std::vector<std::pair<std::string, std::string>> interpreter_rows(const EnvironmentInfo& env,
                                                                  const std::vector<CaseResult>& cases,
                                                                  const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> rows;
  const bool own = cases.empty() || std::any_of(cases.begin(), cases.end(), [](const auto& c) { return c.c.env.empty(); });
  if (own) {
    rows.push_back({"Python", fmt::format("{} ({})", env.python_version, env.python_executable)});
    rows.push_back({"Packages", packages_text(env)});
  }
  std::vector<std::string> seen;
  for (const auto& c : cases) {
    if (c.c.env.empty() || std::find(seen.begin(), seen.end(), c.c.env) != seen.end()) continue;
    seen.push_back(c.c.env);
    const auto read = c.environment.empty() ? std::variant<EnvironmentInfo, std::string>(std::string("not recorded"))
                                            : read_environment(dir / c.environment);
    const auto* e = std::get_if<EnvironmentInfo>(&read);
    rows.push_back({fmt::format("Environment {}", c.c.env),
                    e ? fmt::format("Python {} ({}) · {}", e->python_version, e->python_executable, packages_text(*e))
                      : "not reported (" + std::get<std::string>(read) + ")"});
  }
  return rows;
}

std::vector<std::pair<std::string, std::string>> environment_rows(const LoadedRun& run) {
  const EnvironmentInfo& env = run.environment;
  const auto& cases = run.cases;
  std::string policies;
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
      {"GPU", gpus.empty() ? "none (" + env.gpu_note + ")" : gpus},
      {"Cache modes", policies + " — every compile cache lives in the run's own cache/ dir"},
      {"Ceilings", ceilings_line(env.ceilings())},
      {"Captured", env.captured_at.empty() ? "—" : env.captured_at}};
  const auto interpreters = interpreter_rows(env, cases, run.dir);
  rows.insert(rows.begin() + 2, interpreters.begin(), interpreters.end());
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
    t.rows.push_back({{case_name_md(c.c), status, w && w->matmul_precision ? *w->matmul_precision : "—",
                       ttfr ? format_seconds(ttfr->median) : "—",
                       spread_cell(cold_values(c, "ttfr_s")),  // the Sampling section's rule
                       format_seconds(stats::median(cold_values(c, "import_s"))), format_seconds(stats::median(cold_values(c, "first_call_s"))),
                       format_seconds(stats::median(warm)), format_seconds(stats::percentile(warm, 95))},
                      std::string(to_string(c.status)), c.c.id});
  }
  return t;
}

const std::string kIntro = std::string(
    "**Cold TTFR** (time to first result) = importing the framework and initialising its device + building the "
    "inputs + the first synchronized call, in a fresh process. **Warm call** = one synchronized call once "
    "everything is compiled. ") + kNStarMeaning + " The eager baseline is the same framework without its JIT on "
    "the same device when the run has it, else NumPy; for `jitbench measure`, the function itself without its JIT. "
    "Medians over the cold runs, beside them n and the distribution-free 95% interval where there are 6 runs or "
    "more, else their range (Sampling); every result was checked against a float64 reference.";

// Warnings of a kind that can name every case (a busy machine interferes with
// all of them) fold into one line the reader opens; the run's own line stays.
bool is_grouped_warning(const ReportWarning& w) {
  return (w.kind == "high variance" || w.kind == "few runs" || w.kind == "interfered") && w.case_id != "the run";
}

std::string group_note(const std::string& kind) {
  if (kind == "interfered")
    return "the machine did other work while these cases ran: their times may be slower (docs/noise.md)";
  if (kind == "high variance")
    return fmt::format("coefficient of variation above {:.0f}%: read these medians with their intervals", kCvLimit * 100);
  return fmt::format("fewer than {} cold runs: medians and intervals are rough", kFewRuns);
}

nlohmann::json warnings_json(const std::vector<ReportWarning>& warns) {
  Table single{{"Kind", "Case", "What"}, {}};
  std::vector<std::pair<std::string, Table>> grouped_tables;
  for (const auto& w : warns) {
    if (!is_grouped_warning(w)) {
      single.add({w.kind, md_code(w.case_id), w.text});
      continue;
    }
    auto it = std::find_if(grouped_tables.begin(), grouped_tables.end(), [&](const auto& g) { return g.first == w.kind; });
    if (it == grouped_tables.end()) it = grouped_tables.insert(grouped_tables.end(), {w.kind, Table{{"Case", "What"}, {}}});
    it->second.add({md_code(w.case_id), w.text});
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [kind, t] : grouped_tables)
    groups.push_back({{"kind", kind}, {"note", group_note(kind)}, {"table", table_json(t)}});
  return {{"kind", "warnings"}, {"id", "warnings"}, {"heading", fmt::format("Warnings ({})", warns.size())},
          {"count", warns.size()}, {"single", single.empty() ? nlohmann::json() : table_json(single)},
          {"groups", groups}, {"none", "None: every case ran cleanly, with enough runs and low variance."}};
}

// Everything a section of the report may read.
struct ReportInput {
  const LoadedRun& run;
  const Analysis& analysis;
  SectionInput sections;
};

// A section of the report as report.md and report.html show it; page is null where the page has nothing.
struct ReportPart {
  std::string md;
  nlohmann::json page;
};

template <Section (*build)(const SectionInput&)>
ReportPart shared_part(const ReportInput& in) {
  const auto s = build(in.sections);
  return {section_md(s, SectionForm::Full), section_page_json(s)};
}

ReportPart glance_part(const ReportInput& in) {
  Section s;
  s.id = "glance";
  s.heading = "At a glance";
  s.table = glance_table(in.run.cases, in.analysis);
  s.page_note = "Only ok cases; the figures and the full table follow.";
  return {section_md(s, SectionForm::Full), section_page_json(s)};
}

ReportPart environment_part(const ReportInput& in) {
  Section s;
  s.id = "environment";
  s.heading = "Environment";
  s.table.columns = {"", ""};
  std::string md = "\n## Environment\n\n";
  for (const auto& [k, v] : environment_rows(in.run)) {
    s.table.add({"**" + k + "**", v});
    md += fmt::format("- **{}**: {}\n", k, v);
  }
  return {md, section_page_json(s)};
}

ReportPart warnings_part(const ReportInput& in) {
  const auto warns = report_warnings(in.run.cases, in.analysis);
  std::string md = fmt::format("\n## Warnings ({})\n\n", warns.size());
  for (const auto& w : warns) md += fmt::format("- {} — `{}`: {}\n", w.kind, w.case_id, md_cell(w.text));
  if (warns.empty()) md += "None.\n";
  return {md, warnings_json(warns)};
}

// report.md cannot draw: it names the figures the page drew at its end (report_md).
ReportPart figures_part(const ReportInput&) { return {"", {{"kind", "figures"}}}; }

ReportPart icicles_part(const ReportInput& in) {
  const bool any = std::any_of(in.run.cases.begin(), in.run.cases.end(), [](const CaseResult& c) {
    const auto a = anatomy_summary(c);
    return a && !a->nodes.empty();
  });
  if (!any) return {"", nullptr};
  const auto& f = anatomy_figure();
  return {"", {{"kind", "icicles"}, {"id", "anatomy"}, {"heading", f.title}, {"note", f.note}}};
}

ReportPart cases_part(const ReportInput& in) {
  Section s;
  s.id = "cases";
  s.heading = fmt::format("Cases ({})", in.run.cases.size());
  s.table = cases_table(in.run.cases);
  s.page_note = "A warn case's timings (interpreter_only) are shown for what they are, drawn in the figures with a "
                "red ⚠ mark, and left out of every comparison; a warning about the phase split alone (crosscheck_*) "
                "leaves its times measured and compared.";
  return {section_md(s, SectionForm::Full), section_page_json(s)};
}

using ReportSection = ReportPart (*)(const ReportInput&);

// The report's sections, in order: report.md and report.html render this one list.
// Shared with summary.md, each built once in export/sections/: Throughput, Sampling, Verification, Instructions.
// The report's own, on purpose: the figures (and the compile's icicles) with the environment, the warnings and
// every case they are read against; summary.md has the analysis sections instead (docs/summary_md.cc).
// A new section: its file in export/sections/ (or a part here, if the report's alone), and one line.
constexpr ReportSection kReportSections[] = {
    glance_part,
    environment_part,
    warnings_part,
    shared_part<throughput_section>,
    figures_part,
    icicles_part,
    cases_part,
    shared_part<sampling_section>,
    shared_part<verification_section>,
    shared_part<counts_section>,
};

std::vector<ReportPart> report_parts(const LoadedRun& run, const Analysis& analysis) {
  const ReportInput in{run, analysis, {run.cases, analysis, run.environment}};
  std::vector<ReportPart> parts;
  for (const auto part : kReportSections) parts.push_back(part(in));
  return parts;
}
}  // namespace

nlohmann::json report_page_json(const LoadedRun& run, const Analysis& analysis) {
  std::string command;
  for (const auto& a : run.index.command) command += (command.empty() ? "" : " ") + a;
  nlohmann::json figures = nlohmann::json::array();
  for (const auto& f : report_figures()) figures.push_back({{"key", f.key}, {"title", f.title}, {"note", f.note}});
  nlohmann::json sections = nlohmann::json::array();
  for (auto& part : report_parts(run, analysis))
    if (!part.page.is_null()) sections.push_back(std::move(part.page));
  return {{"intro", kIntro}, {"command", command}, {"sections", sections}, {"figures", figures}};
}

nlohmann::json report_input(const LoadedRun& run, const Analysis& analysis) {
  auto data = figure_data(run.cases, analysis);
  data["report_page"] = report_page_json(run, analysis);
  return data;
}

std::string report_md(const LoadedRun& run, const Analysis& analysis, const std::map<std::string, std::string>& svgs) {
  std::string md = "# jitbench report\n";
  for (const auto& part : report_parts(run, analysis)) md += part.md;
  std::string titles;
  for (const auto& f : report_figures())
    if (svgs.count(f.key)) titles += (titles.empty() ? "" : ", ") + f.title;
  const auto icicles = std::count_if(svgs.begin(), svgs.end(), [](const auto& kv) {
    return kv.first.rfind(anatomy_figure().key + "-", 0) == 0;  // anatomy-<n>: one icicle per case
  });
  if (icicles > 0)
    titles += fmt::format("{}{} ({} icicle{})", titles.empty() ? "" : ", ", anatomy_figure().title, icicles,
                          icicles == 1 ? "" : "s");
  return md + "\nFigures (in report.html): " + titles + "\n";
}

}  // namespace jitbench
