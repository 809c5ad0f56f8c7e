// `jitbench report DIR`: reads the run into the result model, has
// matplotlib draw the figures from the data export/figure_data.cc computes,
// and writes DIR/report/report.html (self-contained) and report.md.
#include <fmt/format.h>

#include <stdlib.h>

#include <fstream>

#include "artifacts/out_dir.h"
#include "commands/commands.h"
#include "export/figure_data.h"
#include "export/json_util.h"
#include "export/report_doc.h"
#include "results/read.h"
#include "run/subprocess.h"
#include "util/fs.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// A private directory for the figure script's files, outside the out dir,
// removed with everything in it when done.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "jitbench-figures-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw UserError(fmt::format("cannot create a temporary directory: {}", templ));
    path = templ;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Runs the figure script on data; returns figure key -> SVG for those it drew.
std::map<std::string, std::string> draw_figures(const ReportOptions& o, const OutDir& out, const nlohmann::json& data) {
  const TempDir work;
  write_file_in(work.path, "data.json", json_text(data));
  SpawnSpec spec;
  const auto python = resolve_python(o.python);
  spec.argv = {python, "-m", "jitbench_figures", (work.path / "data.json").string(), work.path.string()};
  spec.env_set["PYTHONPATH"] = resolve_figures_dir().string();
  spec.log_root = out.root();
  spec.log_path = out.root() / "report" / "report.log";
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
    if (fs::exists(work.path / (f.key + ".svg"))) svgs[f.key] = read_file(work.path / (f.key + ".svg"));
  return svgs;
}
}  // namespace

int cmd_report(const ReportOptions& o) {
  require_valid_run(o.dir, "");
  auto loaded = read_run(o.dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(*e);
  const auto& run = std::get<LoadedRun>(loaded);
  auto reopened = OutDir::reopen(o.dir);  // locked: never beside a run still writing here
  if (auto* e = std::get_if<std::string>(&reopened)) throw UserError(*e);
  const OutDir& out = std::get<OutDir>(reopened);
  const Analysis analysis = analyze(run.cases, run.environment.ceilings());
  const auto svgs = draw_figures(o, out, figure_data(run.cases, analysis));
  write_files_in(out.root(), {{"report/report.html", report_html(run, analysis, svgs)},
                              {"report/report.md", report_md(run, analysis, svgs)}});
  const fs::path report_dir = fs::path(o.dir) / "report";
  say(stdout, "{}\n{}\n", (report_dir / "report.html").string(), (report_dir / "report.md").string());
  return 0;
}

}  // namespace jitbench
