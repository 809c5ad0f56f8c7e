// The bisection: one `jitbench run` per step in a pinned environment, the
// samples of the metric per case, compare's gate against the good end, the
// search between the ends and the confirmation of the boundary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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

  // Per case: the step against good, and whether it regressed beyond the threshold with confidence.
  bool regressed(const StepSamples& good, const StepSamples& step, json& evidence) const {
    bool any = false;
    evidence = json::array();
    for (const auto& [key, xs] : step) {
      const auto g = good.find(key);
      if (g == good.end()) continue;
      const auto row = compare::metric_row(key, o_.metric, g->second, xs, o_.alpha);
      if (!row) continue;
      const bool worse =
          compare::exceeds_regression_limit(row->testable, row->p, o_.alpha, row->lo, 1 + o_.threshold_pct / 100);
      any = any || worse;
      evidence.push_back({{"case", key}, {"median_s", row->new_median}, {"good_median_s", row->base_median},
                          {"ratio", row->ratio}, {"ratio_ci95", {row->lo, row->hi}}, {"p", row->p},
                          {"testable", row->testable}, {"regression", worse}});
    }
    return any;
  }

  void record_verdict(const json& evidence, bool bad) {
    steps_.back()["against_good"] = evidence;
    steps_.back()["verdict"] = bad ? "bad" : "good";
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

int bisect(const BisectOptions& o, const OutDir& out) {
  Bisection b(o, out);
  const auto cands = b.candidates();
  json evidence;
  const auto good = b.measure(cands.front(), "good");
  const auto bad_samples = b.measure(cands.back(), "bad");
  if (good.empty() || bad_samples.empty()) {  // an end that cannot be measured decides nothing
    const std::string& end = good.empty() ? o.good : o.bad;
    write_result(out, o, cands, b, {{"status", "unmeasurable"}, {"first_bad", nullptr}, {"last_good", nullptr},
                                    {"unmeasurable", end}});
    throw UserError(fmt::format("bisect: {} {} gave no comparable measurement (see {}); pick an end that builds and "
                                "runs here", o.package, end, (out.root() / "bisect.json").string()));
  }
  if (!b.regressed(good, bad_samples, evidence)) {
    b.record_verdict(evidence, false);
    write_result(out, o, cands, b, {{"status", "no_regression"}, {"first_bad", nullptr}, {"last_good", nullptr},
                                    {"evidence", evidence}});
    say(stdout, "jitbench bisect: no regression of {} from {} {} to {}: no case is significantly more than {:g}% "
                "slower ({})\n", o.metric, o.package, o.good, o.bad, o.threshold_pct, (out.root() / "bisect.json").string());
    return 0;
  }
  b.record_verdict(evidence, true);
  std::size_t lo = 0, hi = cands.size() - 1;
  std::vector<std::string> skipped;
  std::vector<std::string> left(cands);
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    const auto s = b.measure(left[mid], "step");
    if (s.empty()) {  // unmeasurable here (no wheel for this Python, say): drop it and look again
      skipped.push_back(left[mid]);
      left.erase(left.begin() + static_cast<long>(mid));
      --hi;
      continue;
    }
    const bool bad = b.regressed(good, s, evidence);
    b.record_verdict(evidence, bad);
    (bad ? hi : lo) = mid;
  }
  // The boundary again, alternately, pooled: does it hold on fresh processes?
  const auto l1 = b.measure(left[lo], "confirm"), h1 = b.measure(left[hi], "confirm");
  const auto l2 = b.measure(left[lo], "confirm"), h2 = b.measure(left[hi], "confirm");
  json confirm;
  const bool confirmed = b.regressed(pooled(l1, l2), pooled(h1, h2), confirm);
  write_result(out, o, cands, b,
               {{"status", confirmed ? "found" : "unconfirmed"}, {"first_bad", left[hi]}, {"last_good", left[lo]},
                {"skipped", skipped}, {"confirmation", confirm}});
  say(stdout, "jitbench bisect: {} {} {} the first release with the regression of {} (last good {}){}; every step in {}\n",
      o.package, left[hi], confirmed ? "is" : "looks like", o.metric, left[lo],
      confirmed ? ", confirmed by measuring both again" : ", but measuring both again did not confirm it",
      (out.root() / "bisect.json").string());
  for (const auto& row : confirm)
    say(stdout, "  {}: {} -> {} ({:.2f}x [{:.2f}-{:.2f}], p = {:.3g})\n", row["case"].get<std::string>(),
        format_seconds(row["good_median_s"].get<double>()), format_seconds(row["median_s"].get<double>()),
        row["ratio"].get<double>(), row["ratio_ci95"][0].get<double>(), row["ratio_ci95"][1].get<double>(),
        row["p"].get<double>());
  return 0;
}

}  // namespace jitbench
