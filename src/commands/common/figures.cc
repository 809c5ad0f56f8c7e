// The figure script (src/report/figures: matplotlib figures, Jinja2 pages) run
// on its input document: shared by `report` (a run's figures and report.html)
// and `publish` (the site's pages).
#include <fmt/format.h>

#include <stdlib.h>

#include "commands/common/common.h"
#include "export/json/json_util.h"
#include "run/subprocess.h"
#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;

std::map<std::string, std::string> draw_figures(const std::string& python, const nlohmann::json& data,
                                                const fs::path& log_root, const fs::path& log_path) {
  const PrivateDir dir("jitbench-figures");  // the script's files, outside the out dir, removed with it
  const fs::path& work = dir.path();
  write_file_in(work, "data.json", json_text(data));
  SpawnSpec spec;
  spec.argv = {python, "-m", "jitbench_figures", (work / "data.json").string(), work.string()};
  spec.env_set["PYTHONPATH"] = resolve_figures_dir().string();
  spec.log_root = log_root;
  spec.log_path = log_path;
  spec.timeout = std::chrono::milliseconds(300000);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  if (p.kind == ExitKind::SpawnFailed)
    throw UserError(fmt::format("cannot start Python '{}': {} (pass --python PATH or run scripts/setup.sh)", python,
                                p.spawn_error));
  if (p.kind != ExitKind::Exited || p.exit_code != 0)
    throw UserError(fmt::format("the figures could not be drawn: {} (log: {})", last_line(spec.log_path),
                                spec.log_path.string()));
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(work))
    if (e.is_regular_file() && !e.is_symlink() && e.path() != work / "data.json")
      files[e.path().lexically_relative(work).generic_string()] = read_file(e.path());
  return files;
}

}  // namespace jitbench
