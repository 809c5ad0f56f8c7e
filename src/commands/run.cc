// `jitbench run`: suite -> plan -> one CaseRunner per case -> the artifacts,
// rewritten after every case so that an interrupted run keeps its results.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "artifacts/write_run.h"
#include "commands/commands.h"
#include "config/catalog.h"
#include "env/host.h"
#include "env/probe.h"
#include "export/environment_json.h"
#include "export/json_util.h"
#include "report/format.h"
#include "results/views.h"
#include "run/case_runner.h"
#include "run/replay.h"
#include "stats/stats.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/say.h"

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
  for (const auto& p : o.cache_policies) sel.cache_policies.push_back(*parse_cache_policy(p));  // checked by the CLI
  for (const auto& p : o.precisions) sel.precisions.push_back(*parse_precision(p));
  for (const auto& spec : o.cases) {
    auto r = parse_case_spec(spec);
    if (auto* e = std::get_if<std::string>(&r)) throw UserError(*e);
    sel.cases.push_back(std::get<CaseSpec>(r));
  }
  auto plan = make_plan(suite, sel);
  if (auto* e = std::get_if<std::string>(&plan)) throw UserError(*e);
  return std::get<std::vector<Case>>(plan);
}

WorkerSetup worker_setup(const RunOptions& o, const Suite& suite) {
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
  return setup;
}

// The probe, the environment manifest (written at once) and the run's header.
RunHeader run_header(const RunOptions& o, const Suite& suite, std::size_t n_planned, const OutDir& out,
                     ProcessLauncher& launcher, const std::string& python, int argc, char** argv) {
  ProbeRequest req{python, resolve_worker_dir(), out.root() / "logs" / "probe.log"};
  req.log_root = out.root();
  auto probe = probe_worker(launcher, req);
  if (auto* e = std::get_if<std::string>(&probe)) throw UserError(*e);
  RunHeader h;
  h.deterministic = o.deterministic;
  h.started_at = o.deterministic ? "" : utc_now();
  h.argv.assign(argv, argv + argc);
  h.info.suite_name = suite.name;
  h.info.suite_source = suite.source;
  for (const auto& a : h.argv) h.info.command += (h.info.command.empty() ? "" : " ") + a;
  h.info.n_planned = n_planned;
  const auto manifest = environment_json(read_host_facts(), std::get<nlohmann::json>(probe), compiler_env(),
                                         o.deterministic ? "" : utc_now());
  out.write_text("environment.json", json_text(manifest));
  h.info.environment = parse_environment(manifest);
  return h;
}

// What the terminal shows while a suite runs.
class Progress {
 public:
  Progress(bool quiet, std::size_t n) : n_(n), quiet_(quiet), tty_(isatty(STDERR_FILENO) && !quiet) {
    const char* no_color = std::getenv("NO_COLOR");
    color_ = tty_ && !(no_color && *no_color);
  }
  // case i of N, what it is doing, elapsed, and a naive ETA from the cases done so far.
  CaseRunner::Progress for_case(std::size_t i, const Case& c) const {
    if (!tty_) return {};
    return [this, i, id = c.id](const std::string& what) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      const std::string eta = i == 0 ? "?" : format_seconds(elapsed / double(i) * double(n_ - i));
      say(stderr, "\r\033[K[{}/{}] {}: {} · elapsed {} · ~{} left", i + 1, n_, id, what, format_seconds(elapsed), eta);
    };
  }
  void done(std::size_t i, const CaseResult& r) const {
    if (tty_) say(stderr, "\r\033[K");
    if (!quiet_) say(stderr, "[{}/{}] {}  {}\n", i + 1, n_, r.c.id, one_line(r));
  }

 private:
  // Status words are coloured on a terminal unless NO_COLOR is set (no-color.org).
  std::string status_word(Status s) const {
    const auto w = std::string(to_string(s));
    if (!color_) return w;
    return fmt::format("\033[{}m{}\033[0m", s == Status::Ok ? "32" : s == Status::Warn ? "33" : "31", w);
  }
  std::string one_line(const CaseResult& r) const {
    if (r.status != Status::Ok)
      return fmt::format("{}: {}{}", status_word(r.status), to_string(r.reason),
                         r.detail.empty() ? "" : " (" + r.detail + ")");
    return fmt::format("{}  cold TTFR {}  warm call {}", status_word(r.status),
                       format_seconds(stats::median(cold_values(r, "ttfr_s"))),
                       format_seconds(stats::median(warm_values(r))));
  }
  std::size_t n_;
  bool quiet_, tty_, color_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// A write the out dir refused (full disk, read-only): the run stops, the
// index says why, what was recorded stays valid. Exit code 4.
int stop_on_write_error(const OutDir& out, const RunHeader& h, std::vector<CaseResult> results, bool last_recorded,
                        const WriteError& e) {
  if (!last_recorded && !results.empty()) results.pop_back();
  const Stopped stopped{"write_failed", e.what()};
  const bool indexed = write_stop_index(out, h, results, stopped);
  say(stderr, "jitbench: {}; stopped after recording {} of {} cases.{} {}\n", e.what(), results.size(),
      h.info.n_planned, indexed ? "" : " The index could not be updated: it describes the results before this case.",
      "Free space or make the out dir writable, then run the remaining cases into a new --out-dir.");
  return kExitWriteFailed;
}

int final_line(const std::vector<CaseResult>& results, const OutDir& out) {
  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& r : results) (r.status == Status::Ok ? n_ok : r.status == Status::Warn ? n_warn : n_failed)++;
  say(stdout, "{} cases: {} ok, {} warn, {} failed. Summary: {}\n", results.size(), n_ok, n_warn, n_failed,
      (out.root() / "summary.md").string());
  return n_failed > 0 ? 2 : 0;
}
}  // namespace

int cmd_run(const RunOptions& o, int argc, char** argv) {
  for (const auto& p : o.workload_paths)
    if (auto err = register_user_workload(p)) throw UserError("--workload-path: " + *err);
  const Suite suite = load_suite(o);
  const auto plan = plan_cases(suite, o);
  WorkerSetup setup = worker_setup(o, suite);
  const auto out_path = o.out_dir.empty() ? OutDir::fresh_default("jitbench-out") : std::filesystem::path(o.out_dir);
  auto prepared = OutDir::prepare(out_path);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  const OutDir out = std::get<OutDir>(prepared);
  setup.out_dir = out.root();
  PosixLauncher launcher;
  const RunHeader h = run_header(o, suite, plan.size(), out, launcher, setup.python, argc, argv);

  if (!o.quiet)
    say(stderr, "jitbench: {} cases, {} cold runs + {} warm run{} of {} calls each -> {}\n", plan.size(),
        setup.cold_runs, setup.warm_runs, setup.warm_runs == 1 ? "" : "s", setup.warm_iters, out.root().string());
  install_interrupt_handlers();
  // A development aid: record every worker process for offline replay
  // (src/run/replay.h; the golden test's fixtures are made this way).
  std::optional<RecordingLauncher> recorder;
  if (const char* rec = std::getenv("JITBENCH_RECORD_WORKERS"); rec && *rec) recorder.emplace(launcher, rec);
  CaseRunner runner(recorder ? static_cast<ProcessLauncher&>(*recorder) : launcher, setup);
  const Progress progress(o.quiet, plan.size());
  std::vector<CaseResult> results;
  results.reserve(plan.size());
  try {
    write_run_artifacts(out, h, results, plan.empty());  // an index from the start: the out dir is never without one
  } catch (const WriteError& e) {
    return stop_on_write_error(out, h, results, true, e);
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    results.push_back(runner.run(plan[i], progress.for_case(i, plan[i])));
    fit_case_schema(results.back());
    progress.done(i, results.back());
    const bool stop = interrupted();
    const Stopped why{"interrupted", stop ? fmt::format("signal {}", interrupt_signal()) : ""};
    try {
      write_run_artifacts(out, h, results, i + 1 == plan.size() && !stop, stop ? &why : nullptr);
    } catch (const WriteError& e) {
      return stop_on_write_error(out, h, results, false, e);
    }
    if (stop) {
      say(stderr, "jitbench: interrupted after {} of {} cases; results so far are in {}\n", results.size(), plan.size(),
          out.root().string());
      return 128 + interrupt_signal();
    }
  }
  return final_line(results, out);
}

}  // namespace jitbench
