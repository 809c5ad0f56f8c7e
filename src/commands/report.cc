// `jitbench report DIR`: reads the run into the result model, has
// matplotlib draw the figures from the data export/figure_data.cc computes,
// and writes DIR/report/report.html (self-contained) and report.md.
#include <fmt/format.h>

#include "artifacts/out_dir.h"
#include "commands/commands.h"
#include "export/figure_data.h"
#include "export/json_util.h"
#include "export/report_doc.h"
#include "results/read.h"
#include "util/fs.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

void write_report(const std::string& dir, const std::string& python) {
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(*e);
  const auto& run = std::get<LoadedRun>(loaded);
  auto reopened = OutDir::reopen(dir);  // locked: never beside a run still writing here
  if (auto* e = std::get_if<std::string>(&reopened)) throw UserError(*e);
  const OutDir& out = std::get<OutDir>(reopened);
  const Analysis analysis = analyze(run.cases, run.environment.ceilings());
  const auto svgs = draw_figures(python, figure_data(run.cases, analysis), out.root(),
                                 out.root() / "report" / "report.log");
  write_files_in(out.root(), {{"report/report.html", report_html(run, analysis, svgs)},
                              {"report/report.md", report_md(run, analysis, svgs)}});
}

int cmd_report(const ReportOptions& o) {
  require_valid_run(o.dir, "");
  write_report(o.dir, resolve_python(o.python));
  const fs::path report_dir = fs::path(o.dir) / "report";
  say(stdout, "{}\n{}\n", (report_dir / "report.html").string(), (report_dir / "report.md").string());
  return 0;
}

}  // namespace jitbench
