// A valid run's report (report.html and report.md in DIR/report/), written by
// `jitbench report` and by `publish` for every snapshot it makes.
#include "artifacts/out_dir.h"
#include "commands/common/common.h"
#include "export/docs/figure_data.h"
#include "export/docs/report_doc.h"
#include "results/read.h"
#include "util/fs.h"

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
  const auto files = draw_figures(python, report_input(run, analysis), out.root(),
                                  out.root() / "report" / "report.log");
  std::map<std::string, std::string> svgs;
  for (const auto& [name, text] : files)
    if (const fs::path path(name); path.extension() == ".svg") svgs[path.stem().string()] = text;
  const auto html = files.find("report.html");
  if (html == files.end())
    throw UserError("the figure script wrote no report.html (log: " + (out.root() / "report" / "report.log").string() + ")");
  write_files_in(out.root(), {{"report/report.html", html->second}, {"report/report.md", report_md(run, analysis, svgs)}});
}

}  // namespace jitbench
