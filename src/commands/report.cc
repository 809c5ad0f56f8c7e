// `jitbench report DIR`: reads the run into the result model, has
// matplotlib draw the figures from the data export/figure_data.cc computes,
// and writes DIR/report/report.html (self-contained) and report.md.
#include <fmt/format.h>

#include <fstream>

#include "commands/commands.h"
#include "export/figure_data.h"
#include "export/json_util.h"
#include "export/report_doc.h"
#include "results/read.h"
#include "run/subprocess.h"
#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
std::string last_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// Runs the figure script on data; returns figure key -> SVG for those it drew.
std::map<std::string, std::string> draw_figures(const ReportOptions& o, const fs::path& report_dir,
                                                const nlohmann::json& data) {
  const fs::path work = report_dir / ".figures";
  fs::remove_all(work);
  fs::create_directories(work);
  write_file_atomic(work / "data.json", json_text(data));
  SpawnSpec spec;
  const auto python = resolve_python(o.python);
  spec.argv = {python, "-m", "jitbench_figures", (work / "data.json").string(), work.string()};
  spec.env_set["PYTHONPATH"] = resolve_figures_dir().string();
  spec.log_path = report_dir / "report.log";
  spec.timeout = std::chrono::milliseconds(300000);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  if (p.kind == ExitKind::SpawnFailed)
    throw UserError(fmt::format("cannot start Python '{}': {} (pass --python PATH or run scripts/setup.sh)", python,
                                p.spawn_error));
  if (p.kind != ExitKind::Exited || p.exit_code != 0)
    throw UserError(fmt::format("the report's figures could not be drawn: {} (log: {})", last_line(spec.log_path),
                                spec.log_path.string()));
  std::map<std::string, std::string> svgs;
  for (const auto& f : report_figures())
    if (fs::exists(work / (f.key + ".svg"))) svgs[f.key] = read_file(work / (f.key + ".svg"));
  fs::remove_all(work);
  return svgs;
}
}  // namespace

int cmd_report(const ReportOptions& o) {
  require_valid_run(o.dir, "");
  auto loaded = read_run(o.dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(*e);
  const auto& run = std::get<LoadedRun>(loaded);
  const Analysis analysis = analyze(run.cases);
  const fs::path report_dir = fs::path(o.dir) / "report";
  std::error_code ec;
  fs::create_directories(report_dir, ec);
  if (ec) throw UserError(fmt::format("cannot create {}: {}", report_dir.string(), ec.message()));
  const auto svgs = draw_figures(o, report_dir, figure_data(run.cases, analysis));
  write_file_atomic(report_dir / "report.html", report_html(run, analysis, svgs));
  write_file_atomic(report_dir / "report.md", report_md(run, analysis, svgs));
  fmt::print("{}\n{}\n", (report_dir / "report.html").string(), (report_dir / "report.md").string());
  return 0;
}

}  // namespace jitbench
