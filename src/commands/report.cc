#include <fmt/format.h>

#include <fstream>

#include "commands/commands.h"
#include "run/subprocess.h"

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
}  // namespace

int cmd_report(const ReportOptions& o) {
  require_valid_run(o.dir, "");
  const fs::path report_dir = fs::path(o.dir) / "report";
  std::error_code ec;
  fs::create_directories(report_dir, ec);
  if (ec) throw UserError(fmt::format("cannot create {}: {}", report_dir.string(), ec.message()));

  SpawnSpec spec;
  const auto python = resolve_python(o.python);
  spec.argv = {python, "-m", "jitbench_report", fs::absolute(o.dir).string(), fs::absolute(report_dir).string()};
  spec.env_set["PYTHONPATH"] = resolve_worker_dir().string();
  spec.log_path = report_dir / "report.log";
  spec.timeout = std::chrono::milliseconds(300000);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  if (p.kind == ExitKind::SpawnFailed)
    throw UserError(fmt::format("cannot start Python '{}': {} (pass --python PATH or run scripts/setup.sh)", python,
                                p.spawn_error));
  if (p.kind != ExitKind::Exited || p.exit_code != 0)
    throw UserError(fmt::format("the report could not be built: {} (log: {})", last_line(spec.log_path),
                                spec.log_path.string()));
  fmt::print("{}\n{}\n", (report_dir / "report.html").string(), (report_dir / "report.md").string());
  return 0;
}

}  // namespace jitbench
