// The bisection: one `jitbench run` per step in a pinned environment, the
// samples of the metric per case, compare's gate against the good end, the
// search between the ends and the confirmation of the boundary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <map>

#include "commands/bisection/bisection.h"
#include "commands/common/common.h"
#include "compare/compare.h"
#include "config/environments.h"
#include "compare/significance.h"
#include "export/bisect_json.h"
#include "env/probe.h"
#include "export/json_util.h"
#include "plan/plan.h"
#include "report/format.h"
#include "results/read.h"
#include "results/views.h"
#include "run/protocol.h"
#include "run/subprocess.h"
#include "util/clock.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Per case (id without its environment), one sample per process of the metric.
using StepSamples = std::map<std::string, std::vector<double>>;

// import, first_call, ttfr and warm are compare's samples (compare::metric_samples);
// process_ttfr and compile (every measured phase of the first call) are bisect's own.
std::vector<double> samples_of(const CaseResult& c, const std::string& metric) {
  static const std::map<std::string, std::string> kCompared = {
      {"import", "cold_import_s"}, {"first_call", "cold_first_call_s"}, {"ttfr", "cold_ttfr_s"}, {"warm", "warm_call_s"}};
  if (const auto it = kCompared.find(metric); it != kCompared.end()) {
    auto samples = compare::metric_samples(c);
    return std::move(samples[it->second]);
  }
  std::vector<double> out;
  for (const auto& r : c.cold) {
    if (r.status != Status::Ok) continue;
    std::optional<double> v;
    if (metric == "process_ttfr") v = r.process_ttfr_s();
    else if (auto b = phase_breakdown(r)) v = b->sum_phases;
    if (v) out.push_back(*v);
  }
  return out;
}

// The arguments of `jitbench run` that make the selection, as the user gave them.
std::vector<std::string> run_args(const RunOptions& o) {
  std::vector<std::string> a;
  const auto list = [&](const char* flag, const std::vector<std::string>& v) {
    if (!v.empty()) a.insert(a.end(), {flag, fmt::format("{}", fmt::join(v, ","))});
  };
  if (!o.suite_file.empty()) a.insert(a.end(), {"--suite", fs::absolute(o.suite_file).string()});
  list("--cases", o.cases);
  list("--backends", o.backends);
  list("--cache-policy", o.cache_policies);
  list("--precision", o.precisions);
  for (const auto& w : o.workload_paths) a.insert(a.end(), {"--workload-path", fs::absolute(w).string()});
  if (o.cold_runs) a.insert(a.end(), {"--cold-runs", std::to_string(*o.cold_runs)});
  if (o.warm_iters) a.insert(a.end(), {"--warm-iters", std::to_string(*o.warm_iters)});
  if (o.warm_runs) a.insert(a.end(), {"--warm-runs", std::to_string(*o.warm_runs)});
  if (o.timeout_s) a.insert(a.end(), {"--timeout", fmt::format("{}", *o.timeout_s)});
  if (o.target_ci_pct) a.insert(a.end(), {"--target-ci", fmt::format("{}", *o.target_ci_pct)});
  if (o.min_runs) a.insert(a.end(), {"--min-runs", std::to_string(*o.min_runs)});
  if (o.max_runs) a.insert(a.end(), {"--max-runs", std::to_string(*o.max_runs)});
  if (o.max_time_s) a.insert(a.end(), {"--max-time", fmt::format("{}", *o.max_time_s)});
  for (const auto& f : o.find_links) a.insert(a.end(), {"--find-links", fs::absolute(f).string()});
  if (o.no_index) a.push_back("--no-index");
  return a;
}

enum class Verdict { Regression, Clear, Inconclusive };
struct Judgement {
  Verdict verdict;
  long more_runs;  // inconclusive: runs per side to decide the least decided case (estimated)
};

// Runs per side that would narrow the case's 95% interval of the log ratio
// (width ~ 1/sqrt(n)) until it clears the limit on the side its ratio lies:
// at least one more, at most 1000.
long more_runs_needed(const compare::MetricRow& row, std::size_t n, double limit) {
  if (!(row.lo > 0) || !(row.hi > 0) || !(row.ratio > 0) || n == 0 || !row.testable) return static_cast<long>(std::max<std::size_t>(n, 3));
  const double half = (std::log(row.hi) - std::log(row.lo)) / 2, gap = std::abs(std::log(row.ratio) - std::log(limit));
  if (gap <= 0) return 1000;
  const double need = std::ceil(static_cast<double>(n) * (half / gap) * (half / gap));
  return static_cast<long>(std::clamp(need - static_cast<double>(n), 1.0, 1000.0));
}

class Bisection {
 public:
  Bisection(const BisectOptions& o, const OutDir& out) : o_(o), out_(out) {}

  // The candidates, oldest first, from good to bad.
  std::vector<std::string> candidates() {
    std::vector<std::string> all = o_.versions.empty() ? released_versions() : o_.versions;
    const auto g = std::find(all.begin(), all.end(), o_.good), b = std::find(all.begin(), all.end(), o_.bad);
    if (g == all.end() || b == all.end())
      throw UserError(fmt::format("bisect: {} {} and {} must both be among the releases ({})", o_.package, o_.good,
                                  o_.bad, fmt::join(all, ", ")));
    if (g >= b) throw UserError(fmt::format("bisect: --good {} must be an earlier release than --bad {}", o_.good, o_.bad));
    for (auto it = g; it <= b; ++it)  // a listed release names a directory too
      if (!valid_release_version(*it))
        throw UserError(fmt::format("bisect: {} lists '{}', which is not a release version (PEP 440)", o_.package, *it));
    return {g, b + 1};
  }

  // One run of the selection in the environment of release v; its samples.
  StepSamples measure(const std::string& v, const std::string& role) {
    // Named by the environments' rule (lower case; '+', '!' and the like made '-'): SlowImp 1.0+a is slowimp-1.0-a.
    const std::string name = default_environment_name({o_.package + "==" + v});
    const fs::path dir = out_.root() / "steps" / fmt::format("{}-{}", name, ++runs_[v]);
    std::string env = fmt::format("{}:{}=={}", name, o_.package, v);
    for (const auto& w : o_.with) env += ";" + replace_version(w, v);
    SpawnSpec spec;
    spec.argv = {"/proc/self/exe", "run"};
    const auto sel = run_args(o_.selection);
    spec.argv.insert(spec.argv.end(), sel.begin(), sel.end());
    spec.argv.insert(spec.argv.end(), {"--env", env, "--out-dir", dir.string(), "--quiet"});
    spec.log_path = out_.root() / "logs" / (dir.filename().string() + ".log");
    spec.log_root = out_.root();
    spec.timeout = std::chrono::hours(24 * 7);
    if (!o_.selection.quiet) say(stderr, "jitbench bisect: {} {} ({}) -> {}\n", o_.package, v, role, dir.string());
    const auto p = launcher_.launch(spec);
    if (interrupted()) throw StepInterrupted{};
    StepSamples samples;
    json cases = json::array();
    std::string verdict = "measured";
    if (p.kind != ExitKind::Exited || (p.exit_code != 0 && p.exit_code != 2)) {
      verdict = "failed";
    } else if (auto loaded = read_run(dir); auto* run = std::get_if<LoadedRun>(&loaded)) {
      bool any = false;
      for (const auto& c : run->cases) {
        const auto key = without_environment(c.c.id);
        if (timings_comparable(c)) samples[key] = samples_of(c, o_.metric), any = true;
        cases.push_back({{"case", key}, {"status", to_string(c.status)}, {"reason", text_or_null(to_string(c.reason))}});
      }
      if (!any) verdict = "unmeasurable";  // every case warn or failed: the release cannot be built here, say
    } else {
      verdict = "failed";
    }
    steps_.push_back({{"version", v}, {"role", role}, {"dir", fs::relative(dir, out_.root()).string()},
                      {"exit_code", p.exit_code}, {"verdict", verdict}, {"cases", cases}});
    return samples;
  }

  // Per case: the step against a reference (the good end, or the boundary's
  // other side). A regression when some case is slower beyond the threshold
  // with confidence; clear when every case is, with confidence, within it (its
  // ratio's 95% interval ends below 1 + threshold); else inconclusive, with
  // the runs per side the widest such interval would need to decide.
  Judgement judge(const StepSamples& ref, const StepSamples& step, json& evidence) const {
    Judgement j{Verdict::Clear, 0};
    const double limit = 1 + o_.threshold_pct / 100;
    evidence = json::array();
    for (const auto& [key, xs] : step) {
      const auto g = ref.find(key);
      if (g == ref.end()) continue;
      const auto row = compare::metric_row(key, o_.metric, g->second, xs, o_.alpha);
      if (!row) continue;
      const bool worse = compare::exceeds_regression_limit(row->testable, row->p, o_.alpha, row->lo, limit);
      const bool clear = !worse && row->testable && row->hi <= limit;
      const char* decision = worse ? "regression" : clear ? "clear" : "inconclusive";
      if (worse) j.verdict = Verdict::Regression;
      else if (!clear && j.verdict == Verdict::Clear) j.verdict = Verdict::Inconclusive;
      if (!worse && !clear) j.more_runs = std::max(j.more_runs, more_runs_needed(*row, std::min(g->second.size(), xs.size()), limit));
      evidence.push_back({{"case", key}, {"median_s", row->new_median}, {"good_median_s", row->base_median},
                          {"ratio", row->ratio}, {"ratio_ci95", {row->lo, row->hi}}, {"p", row->p},
                          {"testable", row->testable}, {"regression", worse}, {"decision", decision}});
    }
    return j;
  }

  void record_verdict(const json& evidence, const Judgement& j) {
    steps_.back()["against_good"] = evidence;
    steps_.back()["verdict"] = j.verdict == Verdict::Regression ? "bad" : j.verdict == Verdict::Clear ? "good" : "inconclusive";
  }

  json steps() const { return steps_; }

 private:
  static std::string replace_version(std::string req, const std::string& v) {
    for (auto at = req.find("{}"); at != std::string::npos; at = req.find("{}", at + v.size())) req.replace(at, 2, v);
    return req;
  }

  std::vector<std::string> released_versions() {
    std::vector<std::string> argv = {resolve_python(""), "-m", "jitbench_worker.envs", "versions", "--fd",
                                     std::to_string(kResultFd), "--package", o_.package};
    for (const auto& f : o_.selection.find_links) argv.insert(argv.end(), {"--find-links", f});
    if (o_.selection.no_index) argv.push_back("--no-index");
    const auto log = out_.root() / "logs" / "versions.log";
    const auto p = launcher_.launch(worker_module_spawn(argv, resolve_worker_dir(), log, out_.root(), 300));
    for (const auto& line : p.lines)
      if (auto m = parse_message(line); auto* msg = std::get_if<Message>(&m))
        if (msg->type == MessageType::Versions) return msg->body["versions"].get<std::vector<std::string>>();
    throw UserError(fmt::format("bisect: cannot list the releases of {} (see {}); give them with --versions",
                                o_.package, log.string()));
  }

  const BisectOptions& o_;
  const OutDir& out_;
  PosixLauncher launcher_;
  std::map<std::string, int> runs_;
  json steps_ = json::array();
};

// The candidate halfway between lo and hi that is not left out, if any.
std::optional<std::size_t> middle(std::size_t lo, std::size_t hi, const std::vector<bool>& skip) {
  std::vector<std::size_t> open;
  for (std::size_t k = lo + 1; k < hi; ++k)
    if (!skip[k]) open.push_back(k);
  if (open.empty()) return std::nullopt;
  return open[(open.size() - 1) / 2];
}

StepSamples pooled(const StepSamples& a, const StepSamples& b) {
  StepSamples out = a;
  for (const auto& [k, v] : b) out[k].insert(out[k].end(), v.begin(), v.end());
  return out;
}

void write_result(const OutDir& out, const BisectOptions& o, const std::vector<std::string>& candidates,
                  const Bisection& b, json result) {
  out.write_text("bisect.json", bisect_json({.package = o.package,
                                             .good = o.good,
                                             .bad = o.bad,
                                             .metric = o.metric,
                                             .with = o.with,
                                             .candidates = candidates,
                                             .threshold_pct = o.threshold_pct,
                                             .alpha = o.alpha,
                                             .steps = b.steps(),
                                             .result = std::move(result)}));
}
}  // namespace

namespace {
// The ends when they do not show a regression: "no regression" only when every
// case is within the threshold with confidence, else "inconclusive" with the
// runs it would take. 0 with the result written, or -1 when the search goes on.
int decide_ends(Bisection& b, const BisectOptions& o, const OutDir& out, const std::vector<std::string>& cands,
                const StepSamples& good, const StepSamples& bad) {
  json evidence;
  const auto j = b.judge(good, bad, evidence);
  b.record_verdict(evidence, j);
  if (j.verdict == Verdict::Regression) return -1;
  const bool clear = j.verdict == Verdict::Clear;
  json result = {{"status", clear ? "no_regression" : "inconclusive"}, {"first_bad", nullptr}, {"last_good", nullptr},
                 {"evidence", evidence}};
  if (!clear) result["more_runs_needed"] = j.more_runs;
  write_result(out, o, cands, b, result);
  if (clear)
    say(stdout, "jitbench bisect: no regression of {} from {} {} to {}: every case is, with confidence, less than "
                "{:g}% slower ({})\n", o.metric, o.package, o.good, o.bad, o.threshold_pct,
        (out.root() / "bisect.json").string());
  else
    say(stdout, "jitbench bisect: inconclusive: {} {} against {} neither shows nor rules out a regression of {} beyond "
                "{:g}%; about {} more runs per end needed (--cold-runs; {})\n", o.package, o.bad, o.good, o.metric,
        o.threshold_pct, j.more_runs, (out.root() / "bisect.json").string());
  return 0;
}

// A step judged against the good end; an inconclusive one is measured again
// (its samples pooled) and, still not a regression, taken as good.
bool is_bad(Bisection& b, const StepSamples& good, const std::string& version, const StepSamples& first) {
  json evidence;
  auto j = b.judge(good, first, evidence);
  b.record_verdict(evidence, j);
  if (j.verdict != Verdict::Inconclusive) return j.verdict == Verdict::Regression;
  const auto again = b.measure(version, "remeasure");
  j = b.judge(good, pooled(first, again), evidence);
  if (j.verdict == Verdict::Inconclusive) j.verdict = Verdict::Clear;  // still no regression shown: good
  b.record_verdict(evidence, j);
  return j.verdict == Verdict::Regression;
}

// The boundary measured again, alternately, pooled: does it hold on fresh
// processes? Once more with more runs before it is given up.
bool confirm_boundary(Bisection& b, const std::string& lo, const std::string& hi, json& confirm) {
  const auto l1 = b.measure(lo, "confirm"), h1 = b.measure(hi, "confirm");
  const auto l2 = b.measure(lo, "confirm"), h2 = b.measure(hi, "confirm");
  auto ls = pooled(l1, l2), hs = pooled(h1, h2);
  if (b.judge(ls, hs, confirm).verdict == Verdict::Regression) return true;
  ls = pooled(ls, b.measure(lo, "remeasure"));
  hs = pooled(hs, b.measure(hi, "remeasure"));
  return b.judge(ls, hs, confirm).verdict == Verdict::Regression;
}

void say_found(const BisectOptions& o, const OutDir& out, const std::string& first_bad, const std::string& last_good,
               bool confirmed, const json& confirm) {
  say(stdout, "jitbench bisect: {} {} {} the first release with the regression of {} (last good {}){}; every step in {}\n",
      o.package, first_bad, confirmed ? "is" : "looks like", o.metric, last_good,
      confirmed ? ", confirmed by measuring both again" : ", but measuring both again did not confirm it",
      (out.root() / "bisect.json").string());
  for (const auto& row : confirm)
    say(stdout, "  {}: {} -> {} ({:.2f}x [{:.2f}-{:.2f}], p = {:.3g})\n", row["case"].get<std::string>(),
        format_seconds(row["good_median_s"].get<double>()), format_seconds(row["median_s"].get<double>()),
        row["ratio"].get<double>(), row["ratio_ci95"][0].get<double>(), row["ratio_ci95"][1].get<double>(),
        row["p"].get<double>());
}
}  // namespace

int bisect(const BisectOptions& o, const OutDir& out) {
  Bisection b(o, out);
  const auto cands = b.candidates();
  const auto good = b.measure(cands.front(), "good");
  const auto bad_samples = b.measure(cands.back(), "bad");
  if (good.empty() || bad_samples.empty()) {  // an end that cannot be measured decides nothing
    const std::string& end = good.empty() ? o.good : o.bad;
    write_result(out, o, cands, b, {{"status", "unmeasurable"}, {"first_bad", nullptr}, {"last_good", nullptr},
                                    {"unmeasurable", end}});
    throw UserError(fmt::format("bisect: {} {} gave no comparable measurement (see {}); pick an end that builds and "
                                "runs here", o.package, end, (out.root() / "bisect.json").string()));
  }
  if (const int rc = decide_ends(b, o, out, cands, good, bad_samples); rc >= 0) return rc;
  // Known bad releases, newest first at the back: a boundary not confirmed is
  // given up for the one before it, and the search goes on above the old one.
  std::vector<std::size_t> bads = {cands.size() - 1};
  std::vector<bool> skip(cands.size(), false);
  std::vector<std::string> skipped, overturned;
  std::size_t lo = 0;
  json confirm;
  for (;;) {
    const auto mid = middle(lo, bads.back(), skip);
    if (mid) {
      const auto s = b.measure(cands[*mid], "step");
      if (s.empty()) {  // unmeasurable here (no wheel for this Python, say): left out, and look again
        skip[*mid] = true;
        skipped.push_back(cands[*mid]);
      } else if (is_bad(b, good, cands[*mid], s)) {
        bads.push_back(*mid);
      } else {
        lo = *mid;
      }
      continue;
    }
    if (confirm_boundary(b, cands[lo], cands[bads.back()], confirm) || bads.size() == 1) break;
    overturned.push_back(cands[bads.back()]);  // measured bad once, not again: taken as good
    lo = bads.back();
    bads.pop_back();
  }
  const bool confirmed = !confirm.empty() && std::any_of(confirm.begin(), confirm.end(),
                                                          [](const json& r) { return r.value("regression", false); });
  const auto& first_bad = cands[bads.back()];
  write_result(out, o, cands, b,
               {{"status", confirmed ? "found" : "unconfirmed"}, {"first_bad", first_bad}, {"last_good", cands[lo]},
                {"skipped", skipped}, {"overturned", overturned}, {"confirmation", confirm}});
  say_found(o, out, first_bad, cands[lo], confirmed, confirm);
  return 0;
}

}  // namespace jitbench
