// `jitbench compare BASE NEW`: reads both runs into the result model, compares
// them (compare/compare.h), prints the table, writes the exports, and decides
// the exit code.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "commands/commands.h"
#include "commands/common/pinned.h"
#include "compare/anatomy_delta.h"
#include "compare/compare.h"
#include "compare/gate_verdict.h"
#include "compare/noise.h"
#include "plan/plan.h"
#include "export/docs/anatomy_delta_text.h"
#include "export/json/compare_export.h"
#include "export/docs/interference_text.h"
#include "export/json/json_util.h"
#include "report/format.h"
#include "results/read.h"
#include "stats/sequential.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace {

LoadedRun load_run(const std::string& dir, const char* which) {
  require_valid_run(dir, which);
  auto run = read_run(dir);
  if (auto* e = std::get_if<std::string>(&run)) throw UserError(fmt::format("{}: {}", which, *e));
  return std::get<LoadedRun>(std::move(run));
}

// The HL shift column: the Hodges-Lehmann shift, or for an instruction count the change of medians.
std::string shift_text(const compare::MetricRow& r) {
  switch (compare::metric_info(r.metric).kind) {
    case compare::MetricKind::Memory: return fmt::format("{:+.1f} MiB", r.hl / 1024.0);
    case compare::MetricKind::Instructions: return (r.hl < 0 ? "-" : "+") + format_count(std::abs(r.hl));
    case compare::MetricKind::Time: break;
  }
  return (r.hl < 0 ? "-" : "+") + format_seconds(std::abs(r.hl));
}

// Beside each verdict: each side's interference grade and, where not quiet,
// the CPUs others took ("busy 1.1, quiet"; "—" where none was measured;
// docs/noise.md, "Grades").
std::string interference_column(const compare::MetricRow& r) {
  return grade_cell(r.base_interference) + ", " + grade_cell(r.new_interference);
}

std::string interference_words(const compare::MetricRow& r) {
  return fmt::format("grades BASE {}, NEW {}; interfered with: BASE {}, NEW {}", r.base_interference.grade_text(),
                     r.new_interference.grade_text(), compare::share_text(r.base_interference),
                     compare::share_text(r.new_interference));
}

// The noise floor of a row's case and metric (by its id, or without its environment part).
const NoiseMetric* noise_floor_of(const std::optional<NoiseFloor>& floor, const compare::MetricRow& r) {
  if (!floor) return nullptr;
  const auto* m = floor->find(r.case_id, r.metric);
  return m ? m : floor->find(without_environment(r.case_id), r.metric);
}

std::string floor_text(const std::optional<NoiseFloor>& floor, const compare::MetricRow& r) {
  if (!floor) return "";
  const auto* m = noise_floor_of(floor, r);
  switch (compare::check_floor(m, 0)) {
    case compare::FloorCheck::NotMeasured: return "  (noise floor: not measured)";
    case compare::FloorCheck::Untestable: return "  (noise floor: not measured, too few runs in the noise run)";
    default: break;
  }
  if (!m->detectable_pct) return "  (noise floor: none detectable)";
  return fmt::format("  (noise floor {:.1f}%)", *m->detectable_pct);
}

void print_rows(const compare::Comparison& cmp, const std::optional<NoiseFloor>& floor) {
  say(stdout, "{:<48} {:<26} {:>12} {:>12} {:>24} {:>9} {:>12} {:>29}  {}\n", "case", "metric", "base", "new",
      "ratio [95% CI]", "p (MWU)", "HL shift", "grade B, N", "verdict");
  bool counted = false;
  for (const auto& r : cmp.rows) {
    const bool spread = r.rule == compare::MetricRule::Spread;
    counted = counted || spread;
    // An instruction count's interval is its processes' spread (marked *), and it has no test.
    const auto ratio = spread ? fmt::format("{:.4f} [{:.4f}–{:.4f}]*", r.ratio, r.lo, r.hi)
                              : fmt::format("{:.3f} [{:.3f}–{:.3f}]", r.ratio, r.lo, r.hi);
    say(stdout, "{:<48} {:<26} {:>12} {:>12} {:>24} {:>9} {:>12} {:>29}  {}{}\n", r.case_id, r.metric,
        metric_value_text(r.metric, r.base_median), metric_value_text(r.metric, r.new_median), ratio,
        spread ? std::string("—") : fmt::format("{:.3g}", r.p), shift_text(r), interference_column(r), r.verdict,
        floor_text(floor, r));
  }
  if (counted)
    say(stdout, "* instructions_<phase>: counted per phase in processes of their own (run --count); the interval is "
                "the processes' spread (each side's range, or its median's 95% interval from {} processes on), "
                "the ratio judged against the threshold without a test; a change only where Lord's range test also "
                "finds one (docs/noise.md)\n",
        compare::kSpreadMedianRuns);
  for (const auto& n : cmp.not_compared) say(stdout, "{}\n", n);
}

// A significant change of time that its instruction count does not share:
// said, so that counts never replace time silently.
void print_disagreements(const compare::Comparison& cmp) {
  const auto lines = compare::time_count_disagreements(cmp);
  if (lines.empty()) return;
  say(stdout, "\nTime and instructions disagree ({}):\n", lines.size());
  for (const auto& l : lines) say(stdout, "  {}\n", l);
}

// Where both runs took a compile anatomy of a case (run --anatomy): the
// sub-phases that moved most, the phase first (docs/anatomy.md).
void print_anatomy(const LoadedRun& base, const LoadedRun& next) {
  std::string out;
  for (const auto& [a, b] : compare::paired_cases(base.cases, next.cases)) {
    const auto deltas = compare::anatomy_deltas(a->anatomy, b->anatomy, 0);  // the block lists the top ones
    if (deltas.empty()) continue;
    out += fmt::format("  {}\n", a->c.id == b->c.id ? a->c.id : a->c.id + " vs " + b->c.id);
    out += anatomy_delta_block(deltas, "    ");
  }
  if (out.empty()) return;
  say(stdout, "\nInside the compile (anatomy processes: medians BASE → NEW, the largest {} changes per case and "
              "every phase; ratio NEW/BASE, with its 95% CI where each side has the processes an interval takes, "
              "{} or more, else each side's n and range):\n{}",
      compare::kAnatomyDeltaTop, stats::min_values_for_interval(stats::kReportConfidence), out);
}

// --fail-on-regression PCT below a compared metric's noise floor: a regression
// between PCT and the floor is one the gate cannot confirm here. Warned, or
// with --strict refused (exit 11), before the gate.
std::optional<int> check_threshold(const CompareOptions& o, const compare::Comparison& cmp,
                                   const std::optional<NoiseFloor>& floor) {
  if (!floor || !o.fail_on_regression_pct) return std::nullopt;
  int below = 0;
  for (const auto& r : cmp.rows) {
    const auto* m = noise_floor_of(floor, r);
    if (compare::check_floor(m, *o.fail_on_regression_pct) != compare::FloorCheck::Below) continue;
    ++below;
    say(stderr, "jitbench compare: {}: --fail-on-regression {:g}% is below {} {}'s noise floor ({}): a regression "
                "between them cannot be confirmed on that machine with those counts\n",
        o.strict ? "error" : "warning", *o.fail_on_regression_pct, r.case_id, r.metric,
        m->detectable_pct ? fmt::format("{:.1f}%", *m->detectable_pct) : std::string("none detectable"));
  }
  if (below == 0 || !o.strict) return std::nullopt;
  say(stderr, "jitbench compare: --strict: {} metric(s) have a noise floor above --fail-on-regression {:g}%: raise "
              "the threshold, or measure with more --cold-runs/--warm-runs (and `jitbench noise` again)\n",
      below, *o.fail_on_regression_pct);
  return kExitBelowNoiseFloor;
}

// The manifest a case ran in: its pinned environment's file, or the run's.
const nlohmann::json& manifest_of(const LoadedRun& run, const CaseResult& c,
                                  std::map<std::string, EnvironmentInfo>& loaded) {
  if (c.environment.empty()) return run.environment.manifest;
  const std::string key = (run.dir / c.environment).string();
  if (!loaded.count(key)) {
    auto env = read_environment(run.dir / c.environment);
    if (auto* e = std::get_if<std::string>(&env)) throw UserError(*e);
    loaded.emplace(key, std::get<EnvironmentInfo>(std::move(env)));
  }
  return loaded.at(key).manifest;
}

// Two runs on different machines or packages compare those as much as the
// code: said before the table, never hidden. Cases measured in pinned
// environments are compared with the environment each ran in.
void print_environments(const LoadedRun& base, const LoadedRun& next, bool text) {
  std::map<std::string, EnvironmentInfo> loaded;
  std::vector<std::string> diff;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [a, b] : compare::paired_cases(base.cases, next.cases)) {
    if (!seen.insert({a->environment, b->environment}).second) continue;
    for (const auto& d : environment_differences(manifest_of(base, *a, loaded), manifest_of(next, *b, loaded)))
      if (std::find(diff.begin(), diff.end(), d) == diff.end()) diff.push_back(d);
  }
  if (seen.empty()) diff = environment_differences(base.environment.manifest, next.environment.manifest);
  if (!diff.empty()) {
    if (text) {
      say(stdout, "BASE and NEW ran in different environments; every ratio below compares those as well:\n");
      for (const auto& d : diff) say(stdout, "  {}\n", d);
      say(stdout, "\n");
    }
    say(stderr, "jitbench compare: warning: BASE and NEW ran in different environments ({})\n", diff.front());
  }
  for (const auto* run : {&base, &next})
    if (text && run->index.merged && run->index.merged->environments.size() > 1)
      say(stdout, "{} is a merged run whose shards ran in {} environments (its summary.md lists them).\n\n",
          run == &base ? "BASE" : "NEW", run->index.merged->environments.size());
}

// The closing figures of the text table: tested metrics, geometric means, the lists.
void print_geomeans(const compare::Comparison& cmp, double alpha) {
  // Many metrics are tested at once: say how many verdicts chance alone gives.
  if (cmp.tested > 0)
    say(stdout, "\n{} of {} tested metrics differ at p < {:g}; if nothing had changed, about {:.1f} would by chance.\n",
        cmp.differ, cmp.tested, alpha, alpha * cmp.tested);
  say(stdout, "\nGeometric mean of NEW/BASE ratios over the cases both runs measured:\n");
  for (const auto& [metric, lr] : cmp.log_ratios) {
    double s = 0;
    for (double x : lr) s += x;
    say(stdout, "  {:<26} {:.3f} over {} cases\n", metric, std::exp(s / double(lr.size())), lr.size());
  }
  const auto list = [](const char* title, const std::vector<std::string>& v) {
    if (v.empty()) return;
    say(stdout, "\n{} ({}):\n", title, v.size());
    for (const auto& x : v) say(stdout, "  {}\n", x);
  };
  list("Added in NEW", cmp.added);
  list("Removed in NEW", cmp.removed);
  list("Status changed", cmp.changed);
}

// text: the table's closing figures on stdout; the warnings go to stderr in every format.
void print_summary(const compare::Comparison& cmp, double alpha, bool text, bool gated) {
  if (text) print_geomeans(cmp, alpha);
  if (cmp.few_counts)
    say(stderr, "jitbench compare: warning: some instruction counts have fewer than {} counting processes a side "
                "(marked 'too few runs'): their spread is unknown; count with --count-runs {} or more\n",
        compare::kSpreadMinRuns, compare::kSpreadMinRuns);
  if (cmp.few_runs)
    say(stderr,
        "jitbench compare: warning: some metrics have too few runs for the Mann-Whitney test to reach "
        "p < {:g} (marked 'too few runs'; at 0.05 that takes 4+ processes a side): run with more --cold-runs / "
        "--warm-runs\n",
        alpha);
  // Left out of every gate too: said where the gate's verdict is read (without a gate, the text table says it
  // among its rows).
  if (!text || gated)
    for (const auto& n : cmp.not_compared) say(stderr, "jitbench compare: warning: {}\n", n);
}

void write_or_fail(const std::string& path, const std::string& text) {
  try {
    write_file_atomic(path, text);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("cannot write '{}': {}", path, e.what()));
  }
}

void write_exports(const CompareOptions& o, const LoadedRun& base, const LoadedRun& next,
                   const compare::Comparison& cmp) {
  if (!o.csv.empty()) write_or_fail(o.csv, compare_csv(cmp));
  if (o.pyperf_base.empty()) return;
  for (const auto& [run, suffix, dir] : {std::tuple{&base, "base", o.base}, std::tuple{&next, "new", o.next}})
    write_or_fail(fmt::format("{}.{}.json", o.pyperf_base, suffix),
                  pyperf_suite(run->cases, "jitbench run " + dir).dump(1) + "\n");
}

// Why each failing row fails, on stderr (every format): the gate's own words.
void say_regressions(const CompareOptions& o, const compare::GateVerdict& v) {
  const double limit = 1.0 + *o.fail_on_regression_pct / 100.0;
  for (const auto& g : v.rows) {
    if (!compare::fails(g.gate)) continue;
    const auto& r = g.remeasured && g.gate == compare::RowGate::Confirmed ? *g.remeasured : g.row;
    const std::string again = g.gate == compare::RowGate::Confirmed ? " (confirmed by re-measurement)" : "";
    if (r.rule == compare::MetricRule::Spread)
      say(stderr, "regression: {} {} is {:.2f}% more (ratio {:.4f}, its processes' spread [{:.4f}–{:.4f}] above "
                  "{:.3f})\n", r.case_id, r.metric, (r.ratio - 1) * 100, r.ratio, r.lo, r.hi, limit);
    else
      say(stderr, "regression: {} {} is {:.1f}% worse (ratio 95% CI [{:.3f}–{:.3f}], above {:.3f}; p = {:.3g}){}{}\n",
          r.case_id, r.metric, (r.ratio - 1) * 100, r.lo, r.hi, limit, r.p, again,
          g.gate == compare::RowGate::Regression && r.interfered()
              ? fmt::format("; measured while the machine interfered ({})", interference_words(r))
              : "");
  }
  for (const auto& g : v.rows)
    if (g.gate == compare::RowGate::Cleared)
      say(stderr, "jitbench compare: {} {}: {:.3f} as measured (grades BASE {}, NEW {}), {:.3f} re-measured side by "
                  "side: cleared\n", g.row.case_id, g.row.metric, g.row.ratio, g.row.base_interference.grade_text(),
          g.row.new_interference.grade_text(), g.remeasured->ratio);
    else if (g.gate == compare::RowGate::NotJudged && g.remeasured)
      say(stderr, "jitbench compare: {} {}: {:.3f} as measured, {:.3f} [{:.3f}–{:.3f}] re-measured side by side: "
                  "neither confirmed nor cleared (not failed; measure with more --cold-runs/--warm-runs, or on a "
                  "quiet machine, to decide it)\n", g.row.case_id, g.row.metric, g.row.ratio, g.remeasured->ratio,
          g.remeasured->lo, g.remeasured->hi);
    else if (g.gate == compare::RowGate::LeftToCounts)
      say(stderr, "jitbench compare: {} {}: {:.3f} measured on a machine that was not quiet (grades BASE {}, NEW {}) "
                  "and not re-measured: not failed, left to its instruction counts\n", g.row.case_id, g.row.metric,
          g.row.ratio, g.row.base_interference.grade_text(), g.row.new_interference.grade_text());
  for (const auto& w : v.worsened) say(stderr, "regression: status got worse: {}\n", w);
  // A case NEW lost (a run stopped by a full disk, a shard that never ran) is
  // a result that got worse, not one that went away quietly.
  for (const auto& id : v.removed) say(stderr, "regression: case missing in NEW: {}\n", id);
}

// Where a failing row's side was not quiet: what would tell a real change
// from the machine's load, by name. Said only then.
void say_rerun_hint(const CompareOptions& o, const compare::GateVerdict& v) {
  int loud = 0;
  bool counted = false;
  for (const auto& g : v.rows) {
    counted = counted || g.row.rule == compare::MetricRule::Spread;
    if (g.gate == compare::RowGate::Regression &&
        (!g.row.base_interference.all_quiet() || !g.row.new_interference.all_quiet()))
      ++loud;
  }
  if (loud == 0) return;
  // What would help: the re-measurement the gate makes by default, where it was turned off; the counts,
  // where the runs have none (they do not depend on the machine's load).
  std::string helps;
  if (o.no_remeasure) helps = "leave out --no-remeasure (the gate then re-measures them side by side first); ";
  if (!counted) helps += "measure with `--count instructions` and gate on the counts; ";
  say(stderr, "jitbench compare: {} regression(s) were measured while a side was not quiet (one of its processes "
              "interfered with or not reported; docs/noise.md, \"Grades\"): {}or re-run on a quiet machine before "
              "believing them\n", loud, helps);
}

int gate(const CompareOptions& o, const compare::GateVerdict& v) {
  if (!o.fail_on_regression_pct) return 0;
  say_regressions(o, v);
  if (v.exit_code == 0) return 0;
  int failing = 0;
  for (const auto& g : v.rows) failing += compare::fails(g.gate);
  say(stderr,
      "jitbench compare: {} significant regression(s) above {:g}%, {} case(s) with a worse status, {} case(s) "
      "missing in NEW\n",
      failing, *o.fail_on_regression_pct, v.worsened.size(), v.removed.size());
  say_rerun_hint(o, v);
  return v.exit_code;
}
}  // namespace

namespace {
// Two runs with no case in common have nothing to compare: one line, exit 2
// (a NEW that lost every case under a gate is the gate's: regressions, exit 1).
void require_common_case(const CompareOptions& o, const LoadedRun& base, const LoadedRun& next,
                         const compare::Comparison& cmp) {
  if (cmp.removed.size() < base.cases.size() || (base.cases.empty() && next.cases.empty())) return;
  if (next.cases.empty() && o.fail_on_regression_pct) return;
  auto first = [](const LoadedRun& r) { return r.cases.empty() ? std::string("none") : "e.g. " + r.cases[0].c.id; };
  const auto why = fmt::format("BASE {} ({} cases, {}) and NEW {} ({} cases, {}) have no case in common: compare two "
                               "runs of the same cases (the same --cases and --backends)",
                               o.base, base.cases.size(), first(base), o.next, next.cases.size(), first(next));
  if (o.format == CompareFormat::Json) {  // the document a script parses, with the reason and the exit code
    compare::GateVerdict v;
    v.base = o.base;
    v.next = o.next;
    v.threshold_pct = o.fail_on_regression_pct;
    v.alpha = o.alpha;
    v.exit_code = 2;
    v.nothing_compared = why;
    v.removed = cmp.removed;
    v.added = cmp.added;
    say(stdout, "{}", compare_json(v));
  }
  throw UserError(why);
}
}  // namespace

namespace {
namespace fs = std::filesystem;

// The re-measurement's directory: beside NEW, named after it
// (NEW.remeasure, or NEW.remeasure-2, -3, ... where that is taken).
std::string dir_beside(const std::string& next) {
  const auto trimmed = [](fs::path p) { return p.filename().empty() && p.has_parent_path() ? p.parent_path() : p; };
  fs::path n = trimmed(fs::path(next).lexically_normal());
  if (n.empty() || n.filename() == "." || n.filename() == "..") n = trimmed(fs::absolute(next).lexically_normal());
  for (int k = 1;; ++k) {
    const fs::path d = n.parent_path() / (n.filename().string() + ".remeasure" + (k == 1 ? "" : fmt::format("-{}", k)));
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(d, ec))) return d.string();
  }
}

// What the gate re-measured before failing rows measured on a side that was not quiet.
struct GateRemeasure {
  bool asked = false;  // --fail-on-regression without --no-remeasure or --remeasure
  std::vector<std::string> cases;
  std::optional<compare::Comparison> again;
  std::optional<std::string> dir, cannot;
  std::optional<int> interrupted;
};

GateRemeasure remeasure_for_gate(const CompareOptions& o, const LoadedRun& base, const LoadedRun& next,
                                 const compare::Comparison& cmp) {
  GateRemeasure out;
  out.asked = o.fail_on_regression_pct && !o.no_remeasure && o.remeasure.empty();
  if (out.asked) out.cases = compare::cases_to_remeasure(cmp, *o.fail_on_regression_pct, o.alpha);
  if (out.cases.empty()) return out;
  const auto cannot = [&](const std::string& why) {
    say(stderr, "jitbench compare: cannot re-measure BASE: {}\n", why);
    out.cannot = why;
    return out;
  };
  if (auto why = why_base_code_not_pinned(base, out.cases)) return cannot(*why);
  std::vector<std::string> new_ids;  // NEW's own ids of those cases: NEW is measured again too
  for (const auto& [a, b] : compare::paired_cases(base.cases, next.cases))
    if (std::find(out.cases.begin(), out.cases.end(), a->c.id) != out.cases.end()) new_ids.push_back(b->c.id);
  if (auto why = why_code_not_pinned(next, new_ids, "NEW")) return cannot("NEW is not pinned either: " + *why);
  const std::string dir = dir_beside(o.next);
  std::optional<std::pair<std::string, std::string>> dirs;
  try {
    require_outside_inputs(dir, "the re-measurement", {{"BASE", o.base}, {"NEW", o.next}});
    say(stderr, "jitbench compare: re-measuring {} case(s) of BASE and NEW side by side, interleaved (a row would "
                "fail while a side was not quiet) -> {}\n", out.cases.size(), dir);
    dirs = remeasure_side_by_side(o.base, o.next, dir, true, out.cases);
  } catch (const UserError& e) {
    say(stderr, "jitbench compare: the re-measurement failed: {}\n", e.what());
    out.cannot = std::string("the re-measurement failed: ") + e.what();
    return out;
  }
  if (!dirs) {
    out.interrupted = 128 + interrupt_signal();  // said why on stderr; as an interrupted run exits
    return out;
  }
  const LoadedRun a = load_run(dirs->first, "the re-measured BASE"), b = load_run(dirs->second, "the re-measured NEW");
  if (auto why = why_environment_changed(base, a, next, b))
    return cannot(*why + "; the re-measurement in " + dir + " is not used");
  out.dir = dir;
  out.again = compare::compare_runs(a.cases, b.cases, o.alpha);
  return out;
}

// Text: each re-measured row beside its first measurement.
void print_remeasured(const compare::GateVerdict& v) {
  if (!v.remeasure_dir) return;
  say(stdout, "\nRe-measured side by side, interleaved ({}):\n", *v.remeasure_dir);
  for (const auto& g : v.rows)
    if (g.remeasured && (g.gate == compare::RowGate::Cleared || g.gate == compare::RowGate::Confirmed))
      say(stdout, "  {:<48} {:<22} {:.3f} [{:.3f}–{:.3f}] as measured -> {:.3f} [{:.3f}–{:.3f}]: {}\n", g.row.case_id,
          g.row.metric, g.row.ratio, g.row.lo, g.row.hi, g.remeasured->ratio, g.remeasured->lo, g.remeasured->hi,
          compare::to_string(g.gate));
}

int emit_verdict(const CompareOptions& o, compare::GateVerdict& v, std::optional<int> refused) {
  if (refused) v.exit_code = *refused;
  if (o.format == CompareFormat::Markdown) say(stdout, "{}", compare_markdown(v));
  if (o.format == CompareFormat::Json) say(stdout, "{}", compare_json(v));
  if (o.format == CompareFormat::Text) print_remeasured(v);
  append_step_summary(compare_markdown(v), "jitbench compare");
  return refused ? *refused : gate(o, v);
}
}  // namespace

int cmd_compare(const CompareOptions& given) {
  CompareOptions o = given;
  // Every output outside the runs read: BASE and NEW must stay as they were.
  const std::vector<ReadDir> read = {{"BASE", o.base}, {"NEW", o.next}, {"--noise-floor", o.noise_floor}};
  for (const auto& [flag, out] : {std::pair<std::string, std::string>{"--remeasure", o.remeasure}, {"--csv", o.csv},
                                  {"--pyperf", o.pyperf_base.empty() ? "" : o.pyperf_base + ".base.json"}})
    if (!out.empty()) require_outside_inputs(out, flag, read);
  if (!o.noise_floor.empty()) load_noise_floor(o.noise_floor, "--noise-floor");  // a bad D before anything runs
  if (!o.remeasure.empty()) {
    load_run(o.base, "BASE");
    load_run(o.next, "NEW");
    const auto dirs = remeasure_side_by_side(o.base, o.next, o.remeasure, false);
    if (!dirs) return 128 + interrupt_signal();  // said why on stderr; as an interrupted run exits
    std::tie(o.base, o.next) = *dirs;
  }
  const LoadedRun base = load_run(o.base, "BASE");
  const LoadedRun next = load_run(o.next, "NEW");
  const auto cmp = compare::compare_runs(base.cases, next.cases, o.alpha);
  require_common_case(o, base, next, cmp);
  std::optional<NoiseFloor> floor;
  if (!o.noise_floor.empty()) floor = load_noise_floor(o.noise_floor, "--noise-floor");
  const bool text = o.format == CompareFormat::Text;
  if (text) {
    say(stdout, "jitbench compare: BASE {} ({} cases) vs NEW {} ({} cases)\n\n", o.base, base.cases.size(), o.next,
        next.cases.size());
  }
  print_environments(base, next, text);
  if (text) {
    print_rows(cmp, floor);
    print_disagreements(cmp);
    print_anatomy(base, next);
  }
  print_summary(cmp, o.alpha, text, o.fail_on_regression_pct.has_value());
  write_exports(o, base, next, cmp);
  const auto refused = check_threshold(o, cmp, floor);
  GateRemeasure again;
  if (!refused) again = remeasure_for_gate(o, base, next, cmp);
  if (again.interrupted) return *again.interrupted;
  auto verdict = compare::gate_rows(cmp, o.fail_on_regression_pct, o.alpha, again.again, again.asked);
  verdict.base = o.base;
  verdict.next = o.next;
  verdict.remeasure_dir = again.dir;
  if (again.dir) verdict.remeasured_cases = again.cases;
  verdict.cannot_remeasure = again.cannot;
  return emit_verdict(o, verdict, refused);
}

}  // namespace jitbench
