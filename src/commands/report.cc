// `jitbench report DIR`: reads the run into the result model, has
// matplotlib draw the figures from the data export/docs/figure_data.cc computes,
// and writes DIR/report/report.html (self-contained) and report.md.
#include <fmt/format.h>

#include "commands/commands.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

int cmd_report(const ReportOptions& o) {
  require_valid_run(o.dir, "");
  write_report(o.dir, resolve_python(o.python));
  const fs::path report_dir = fs::path(o.dir) / "report";
  say(stdout, "{}\n{}\n", (report_dir / "report.html").string(), (report_dir / "report.md").string());
  return 0;
}

}  // namespace jitbench
