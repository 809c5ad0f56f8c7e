#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "artifacts/write_run.h"
#include "commands/commands.h"
#include "config/catalog.h"
#include "env/manifest.h"
#include "env/probe.h"
#include "report/format.h"
#include "results/json.h"
#include "run/case_runner.h"
#include "run/replay.h"
#include "stats/stats.h"
#include "util/interrupt.h"

namespace jitbench {
namespace {

Suite load_suite(const RunOptions& o) {
  if (o.suite_file.empty()) return default_suite();
  auto r = load_suite_file(o.suite_file);
  if (auto* e = std::get_if<ConfigError>(&r)) throw UserError(e->message);
  return std::get<Suite>(r);
}

std::vector<Case> plan_cases(const Suite& suite, const RunOptions& o) {
  Selection sel;
  sel.backends = o.backends;
  sel.cache_policies = o.cache_policies;
  sel.precisions = o.precisions;
  for (const auto& spec : o.cases) {
    auto r = parse_case_spec(spec);
    if (auto* e = std::get_if<std::string>(&r)) throw UserError(*e);
    sel.cases.push_back(std::get<CaseSpec>(r));
  }
  auto plan = make_plan(suite, sel);
  if (auto* e = std::get_if<std::string>(&plan)) throw UserError(*e);
  return std::get<std::vector<Case>>(plan);
}

// Status words are coloured on a terminal unless NO_COLOR is set (no-color.org).
std::string status_word(Status s, bool color) {
  const auto w = to_string(s);
  if (!color) return w;
  const char* code = s == Status::Ok ? "32" : s == Status::Warn ? "33" : "31";
  return fmt::format("\033[{}m{}\033[0m", code, w);
}

std::string one_line_result(const CaseResult& r, bool color) {
  if (r.status != Status::Ok)
    return fmt::format("{}: {}{}", status_word(r.status, color), r.reason, r.detail.empty() ? "" : " (" + r.detail + ")");
  return fmt::format("{}  cold TTFR {}  warm call {}", status_word(r.status, color), format_seconds(stats::median(cold_values(r, "ttfr_s"))),
                     format_seconds(stats::median(warm_values(r))));
}

}  // namespace

int cmd_run(const RunOptions& o, int argc, char** argv) {
  for (const auto& p : o.workload_paths)
    if (auto err = register_user_workload(p)) throw UserError("--workload-path: " + *err);
  const Suite suite = load_suite(o);
  const auto plan = plan_cases(suite, o);

  WorkerSetup setup;
  setup.python = resolve_python(o.python);
  setup.worker_dir = resolve_worker_dir();
  setup.native_worker = resolve_native_worker();
  setup.native_blas = resolve_native_blas(setup.python);
  setup.cold_runs = o.cold_runs.value_or(suite.cold_runs);
  setup.warm_iters = o.warm_iters.value_or(suite.warm_iters);
  setup.warm_runs = o.warm_runs.value_or(suite.warm_runs);
  setup.timeout_s = o.timeout_s.value_or(suite.timeout_s);
  setup.deterministic = o.deterministic;

  const auto out_path = o.out_dir.empty() ? OutDir::fresh_default("jitbench-out") : std::filesystem::path(o.out_dir);
  auto prepared = OutDir::prepare(out_path);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  const OutDir out = std::get<OutDir>(prepared);
  setup.out_dir = out.root();

  PosixLauncher launcher;
  auto probe = probe_worker(launcher, {setup.python, setup.worker_dir, out.root() / "logs" / "probe.log"});
  if (auto* e = std::get_if<std::string>(&probe)) throw UserError(*e);

  RunHeader h;
  h.deterministic = o.deterministic;
  h.started_at = o.deterministic ? "" : utc_now();
  h.argv.assign(argv, argv + argc);
  h.info.suite_name = suite.name;
  h.info.suite_source = suite.source;
  for (const auto& a : h.argv) h.info.command += (h.info.command.empty() ? "" : " ") + a;
  h.info.n_planned = plan.size();
  h.info.environment = environment_manifest(std::get<nlohmann::json>(probe), o.deterministic);
  out.write_json("environment.json", h.info.environment);

  const bool tty = isatty(STDERR_FILENO) && !o.quiet;
  const char* no_color = std::getenv("NO_COLOR");
  const bool color = tty && !(no_color && *no_color);
  const auto t_suite = std::chrono::steady_clock::now();
  if (!o.quiet)
    fmt::print(stderr, "jitbench: {} cases, {} cold runs + {} warm run{} of {} calls each -> {}\n", plan.size(),
               setup.cold_runs, setup.warm_runs, setup.warm_runs == 1 ? "" : "s", setup.warm_iters,
               out.root().string());
  install_interrupt_handlers();
  // A development aid: record every worker process for offline replay
  // (src/run/replay.h; the golden test's fixtures are made this way).
  std::optional<RecordingLauncher> recorder;
  if (const char* rec = std::getenv("JITBENCH_RECORD_WORKERS"); rec && *rec) recorder.emplace(launcher, rec);
  CaseRunner runner(recorder ? static_cast<ProcessLauncher&>(*recorder) : launcher, setup);
  std::vector<CaseResult> results;
  results.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& c = plan[i];
    const auto progress = [&](const std::string& what) {
      if (!tty) return;
      // case i of N, what it is doing, elapsed, and a naive ETA from the cases done so far.
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_suite).count();
      const std::string eta = i == 0 ? "?" : format_seconds(elapsed / double(i) * double(plan.size() - i));
      fmt::print(stderr, "\r\033[K[{}/{}] {}: {} · elapsed {} · ~{} left", i + 1, plan.size(), c.id, what,
                 format_seconds(elapsed), eta);
    };
    results.push_back(runner.run(c, progress));
    if (tty) fmt::print(stderr, "\r\033[K");
    if (!o.quiet)
      fmt::print(stderr, "[{}/{}] {}  {}\n", i + 1, plan.size(), c.id, one_line_result(results.back(), color));
    write_run_artifacts(out, h, results, i + 1 == plan.size() && !interrupted());
    if (interrupted()) {
      fmt::print(stderr, "jitbench: interrupted after {} of {} cases; results so far are in {}\n", results.size(),
                 plan.size(), out.root().string());
      return 128 + interrupt_signal();
    }
  }

  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& r : results) (r.status == Status::Ok ? n_ok : r.status == Status::Warn ? n_warn : n_failed)++;
  fmt::print("{} cases: {} ok, {} warn, {} failed. Summary: {}\n", results.size(), n_ok, n_warn, n_failed,
             (out.root() / "summary.md").string());
  return n_failed > 0 ? 2 : 0;
}

}  // namespace jitbench
