// `compare --remeasure DIR`: the cases BASE and NEW both planned, measured
// again here from their recorded commands, side by side.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "commands/commands.h"
#include "commands/run/run.h"
#include "results/read.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace {
// A recorded run's command, ready to measure again here (as --resume reads it).
struct RecordedRun {
  RunOptions o;
  PlannedRun p;
  std::vector<std::string> command;
};

RecordedRun recorded_run(const std::string& dir, const std::filesystem::path& out, const char* label) {
  auto index = read_index(std::filesystem::path(dir) / kIndexFile);
  if (auto* e = std::get_if<std::string>(&index)) throw UserError(fmt::format("--remeasure: {}: {}", label, *e));
  const RunIndex& x = std::get<RunIndex>(index);
  if (x.merged) throw UserError(fmt::format("--remeasure: {} '{}' is a merged run: give its shards' runs", label, dir));
  RecordedRun r;
  r.o = recorded_run_options(x);
  const InputCopies inputs = use_recorded_inputs(x, std::filesystem::absolute(dir), r.o);
  r.o.out_dir = out.string();
  r.o.quiet = true;
  r.o.shard.reset();  // the cases both runs measured, whichever shard they were in
  r.p = make_planned_run(r.o, inputs);
  r.command = x.command;
  return r;
}
}  // namespace

std::optional<std::pair<std::string, std::string>> remeasure_side_by_side(const std::string& base,
                                                                          const std::string& next,
                                                                          const std::string& out_dir, bool quiet,
                                                                          const std::vector<std::string>& only) {
  namespace fs = std::filesystem;
  require_utf8_cwd();
  const fs::path dir = out_dir;
  make_empty_dir(dir, "--remeasure", "base/ and new/");
  RecordedRun a = recorded_run(base, dir / "base", "BASE"), b = recorded_run(next, dir / "new", "NEW");
  // The cases both measured, paired as compare pairs them (by id, or by id without its environment).
  std::vector<std::pair<Case, Case>> pairs;
  const auto key = [&](const std::string& id, bool strip) { return strip ? without_environment(id) : id; };
  const bool shared = std::any_of(a.p.cases.begin(), a.p.cases.end(), [&](const Case& c) {
    return std::any_of(b.p.cases.begin(), b.p.cases.end(), [&](const Case& d) { return d.id == c.id; });
  });
  // As compare pairs them: by id without the environment only where that is one to one on each side.
  const auto one_to_one = [&](const std::vector<Case>& cs) {
    std::set<std::string> keys;
    for (const auto& c : cs) keys.insert(without_environment(c.id));
    return keys.size() == cs.size();
  };
  const bool strip = !shared && one_to_one(a.p.cases) && one_to_one(b.p.cases);
  for (const auto& ca : a.p.cases)
    for (const auto& cb : b.p.cases)
      if (key(ca.id, strip) == key(cb.id, strip) &&
          (only.empty() || std::find(only.begin(), only.end(), ca.id) != only.end()))
        pairs.emplace_back(ca, cb);
  if (pairs.empty()) throw UserError("--remeasure: BASE and NEW planned no case in common: nothing to measure side by side");
  install_interrupt_handlers();
  Launchers launchers(a.o.affinity == b.o.affinity ? a.o.affinity : std::vector<int>{});  // both runs' pinning, or none
  try {
    NoiseSide sa = start_noise_side(a.o, a.p, dir / "base", a.command, launchers.posix);
    NoiseSide sb = start_noise_side(b.o, b.p, dir / "new", b.command, launchers.posix);
    if (!quiet) say(stderr, "jitbench compare --remeasure: {} case(s) of BASE and NEW again, interleaved -> {}\n",
                    pairs.size(), dir.string());
    if (measure_sides(pairs, true, quiet, sa, sb, {"../base", "../new"}, launchers.get()))
      return std::pair{(dir / "base").string(), (dir / "new").string()};
  } catch (const SidesInterrupted&) {
  }
  say(stderr, "jitbench compare: --remeasure interrupted; nothing was compared, and a re-measurement cannot be "
              "resumed (its two sides are measured together): run the same compare again with --remeasure and a new "
              "directory (what was measured is in {})\n", dir.string());
  return std::nullopt;
}

}  // namespace jitbench
