// `jitbench noise`: the selection measured twice, interleaved, into D/a and
// D/b, and D/noise.json (the smallest detectable regression per case and metric).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "commands/commands.h"
#include "commands/run/run.h"
#include "compare/noise.h"
#include "export/json/noise_json.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace {
void print_noise(const NoiseFloor& floor, const std::filesystem::path& file) {
  say(stdout, "{:<48} {:<22} {:>8} {:>22} {:>14}\n", "case", "metric", "n", "A/A ratio [95% CI]", "detectable");
  for (const auto& m : floor.metrics)
    say(stdout, "{:<48} {:<22} {:>8} {:>22} {:>14}\n", m.case_id, m.metric, fmt::format("{}+{}", m.n_a, m.n_b),
        fmt::format("{:.3f} [{:.3f}-{:.3f}]", m.ratio, m.lo, m.hi),
        m.detectable_pct ? fmt::format(">= {:.1f}%", *m.detectable_pct) : std::string("none"));
  say(stdout, "Noise floor: {}\n", file.string());
}

// Both sides measured: the floor into D/noise.json, then each side's last line.
int finish_noise(const NoiseOptions& n, NoiseFloor& floor, const std::filesystem::path& dir, NoiseSide& a,
                 NoiseSide& b) {
  floor.metrics = compare::noise_metrics(a.results, b.results, n.alpha);
  floor.finished_at = n.run.deterministic ? "" : utc_now();
  try {
    write_file_atomic(dir / "noise.json", noise_json(floor));
  } catch (const std::exception& e) {
    throw UserError(fmt::format("cannot write '{}': {}", (dir / "noise.json").string(), e.what()));
  }
  if (!n.run.quiet) print_noise(floor, dir / "noise.json");
  const int rc_a = final_line(a.results, a.out);  // side A's line, then side B's
  const int rc_b = final_line(b.results, b.out);
  return std::max(rc_a, rc_b);
}
}  // namespace

int cmd_noise(const NoiseOptions& n, const std::vector<std::string>& command) {
  namespace fs = std::filesystem;
  require_utf8_cwd();
  const fs::path dir = n.run.out_dir;
  make_empty_dir(dir, "--out-dir", "a/, b/ and noise.json");
  const PlannedRun p = make_planned_run(n.run, {});
  install_interrupt_handlers();
  Launchers launchers(n.run.affinity);
  NoiseFloor floor;
  floor.alpha = n.alpha;
  floor.run_a = "a";
  floor.run_b = "b";
  floor.command = command;
  floor.started_at = n.run.deterministic ? "" : utc_now();
  const auto stopped = [&] {
    say(stderr, "jitbench noise: interrupted; no noise.json was written, and a noise run cannot be resumed (its two "
                "sides are measured together): run `jitbench noise` again into a new directory (what was measured "
                "is in {})\n", dir.string());
    return 128 + interrupt_signal();
  };
  std::vector<std::pair<Case, Case>> pairs;
  for (const auto& c : p.cases) pairs.emplace_back(c, c);
  try {
    NoiseSide a = start_noise_side(n.run, p, dir / "a", command, launchers.posix);
    NoiseSide b = start_noise_side(n.run, p, dir / "b", command, launchers.posix);
    announce(n.run.quiet, p.cases.size(), a.setup, a.out, " (twice: A/A, interleaved)");
    if (!measure_sides(pairs, !n.run.no_interleave, n.run.quiet, a, b, {"../a", "../b"}, launchers.get()))
      return stopped();
    return finish_noise(n, floor, dir, a, b);
  } catch (const SidesInterrupted&) {
    return stopped();
  }
}

}  // namespace jitbench
