// `jitbench bisect --package P --good V1 --bad V2`: which release of P made a
// metric worse; with `--git REPO --good REV --bad REV`, which commit of a
// local repository (each exported and installed with no network:
// docs/bisect-git.md; the commits are read in commands/bisection/git_range.cc). Every step is an ordinary `jitbench run` of the selection in an
// environment pinned to one release (its own out dir under OUT/steps/, which
// validate, report and compare take); the two ends are measured first, side by
// side in one run (their cold processes interleaved), and the regression
// confirmed (significant, and larger than --threshold with confidence:
// compare's gate), then the releases between them are halved, and the final
// pair is measured again, side by side, to confirm the boundary.
// OUT/bisect.json (schemas/jitbench.bisect.v5.schema.json) has every step;
// the bisection itself is commands/bisection/.
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <optional>

#include "commands/bisection/bisection.h"
#include "commands/bisection/git_range.h"
#include "commands/commands.h"
#include "compare/noise.h"
#include "config/environments.h"
#include "env/counting_tools.h"
#include "results/noise_record.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
void check_bisect_extras(const BisectOptions& o);
// --git: the repository as an absolute path, and the package named after its
// directory when --package is not given (made a package name: "My Repo" is My-Repo).
BisectOptions with_git_defaults(BisectOptions o) {
  if (o.git.empty()) return o;
  fs::path repo = fs::absolute(o.git).lexically_normal();
  if (!repo.has_filename()) repo = repo.parent_path();
  o.git = repo.string();
  if (!o.package.empty()) return o;
  std::string name;
  for (const char c : repo.filename().string())
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ? c : '-';
  const auto first = name.find_first_not_of("-._"), last = name.find_last_not_of("-._");
  o.package = first == std::string::npos ? std::string("repository") : name.substr(first, last - first + 1);
  return o;
}
// Before anything is made: the package, the releases and the extra
// requirements name what they should (the package's name becomes a directory's).
void check_bisect_names(const BisectOptions& o) {
  if (!o.git.empty() && o.package.empty()) return check_bisect_extras(o);  // revisions are checked by git, later
  if (!valid_package_name(o.package))
    throw UserError(fmt::format("bisect --package '{}': not a package name (letters, digits, '.', '-', '_', starting "
                                "and ending with a letter or digit; PEP 508)", o.package));
  std::vector<std::string> versions = o.versions;
  if (o.git.empty()) versions.insert(versions.end(), {o.good, o.bad});  // a commit is a revision, not a release
  for (const auto& v : versions)
    if (!valid_release_version(v))
      throw UserError(fmt::format("bisect: '{}' is not a release version (PEP 440: 1.2, 2.0rc1, 1.0.post1, 1.0+local)", v));
  check_bisect_extras(o);
}
// --with (--install-extra): each requirement one the installer takes as a requirement.
void check_bisect_extras(const BisectOptions& o) {
  for (const auto& w : o.with)  // one --with may hold several requirements, as --env does: each is checked
    for (const auto& r : split_requirements(w))
      if (auto why = forbidden_requirement(r); !why.empty()) throw UserError("bisect --with: " + why);
}
// --noise-floor D: the bisected metric's floor in D per case, said before
// anything is measured; a --threshold below it is warned of, or with --strict
// refused (exit 11), since a regression between them cannot be confirmed here.
std::optional<int> check_noise_floor(const BisectOptions& o) {
  if (o.noise_floor.empty()) return std::nullopt;
  const NoiseFloor floor = load_noise_floor(o.noise_floor, "--noise-floor");
  static const std::map<std::string, std::string> kMetric = {
      {"import", "cold_import_s"}, {"first_call", "cold_first_call_s"}, {"ttfr", "cold_ttfr_s"}, {"warm", "warm_call_s"}};
  const auto it = kMetric.find(o.metric);
  int measured = 0, below = 0;
  for (const auto& m : floor.metrics) {
    if (it == kMetric.end() || m.metric != it->second) continue;
    ++measured;
    const auto check = compare::check_floor(&m, o.threshold_pct);
    below += check == compare::FloorCheck::Below;
    say(stderr, "jitbench bisect: {}'s noise floor for {}: {}{}\n", m.case_id, o.metric,
        check == compare::FloorCheck::Untestable ? std::string("not measured, too few runs in the noise run")
        : m.detectable_pct ? fmt::format("{:.1f}%", *m.detectable_pct) : std::string("none detectable"),
        check == compare::FloorCheck::Below
            ? fmt::format(" -- above --threshold {:g}%: a regression between them cannot be confirmed here",
                          o.threshold_pct) : "");
  }
  if (measured == 0)
    say(stderr, "jitbench bisect: warning: {} has no noise floor for --metric {} (noise measures import, first_call, "
                "ttfr and warm)\n", o.noise_floor, o.metric);
  if (below == 0 || !o.strict) return std::nullopt;
  say(stderr, "jitbench bisect: --strict: --threshold {:g}% is below the noise floor of {} case(s): raise it, or "
              "measure with more --cold-runs/--warm-runs (and `jitbench noise` again)\n", o.threshold_pct, below);
  return kExitBelowNoiseFloor;
}
// --count (or an instruction metric): what every step's run needs to count,
// found here before anything is made, rather than as steps that measured nothing.
void check_counting(const RunOptions& o) {
  if (!o.count) return;
  CountingRequest req{o.count_source, o.count_runs.value_or(2), 1, resolve_count_library()};
  if (auto found = resolve_counting(req); std::holds_alternative<std::string>(found))
    throw UserError("bisect: " + std::get<std::string>(found));
}
}  // namespace

int cmd_bisect(const BisectOptions& given) {
  check_bisect_names(given);
  require_utf8_cwd();
  const BisectOptions o = with_git_defaults(given);
  require_affinity(o.selection.affinity);
  // A repository and revisions that name its commits, checked before anything is made; read once.
  const auto commits = o.git.empty() ? std::vector<GitCommit>{} : git_candidates(o.git, o.good, o.bad);
  if (auto refused = check_noise_floor(o)) return *refused;
  require_outside_inputs(o.out_dir, "--out-dir", {{"--noise-floor", o.noise_floor}, {"--costs", o.selection.costs_dir}});
  check_counting(o.selection);
  auto prepared = OutDir::prepare(o.out_dir);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  const OutDir out = std::get<OutDir>(prepared);
  install_interrupt_handlers();
  try {
    return bisect(o, out, commits);
  } catch (const StepInterrupted&) {
    say(stderr, "jitbench bisect: interrupted; the steps measured so far are in {}\n", (out.root() / "steps").string());
    return 128 + interrupt_signal();
  }
}

}  // namespace jitbench
