#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <map>

#include <algorithm>

#include <cmath>
#include <iostream>

#include "cli/options.h"
#include "config/catalog.h"
#include "config/limits.h"
#include "util/build_info.h"
#include "util/cpu_list.h"

namespace jitbench {
namespace {

void check_names(const std::vector<std::string>& names, bool (*valid)(std::string_view), const char* flag,
                 const std::string& valid_list) {
  for (const auto& n : names)
    if (!valid(n)) throw UserError(fmt::format("unknown value '{}' for {} (valid: {})", n, flag, valid_list));
}

// Names of config/names.h, typed here once: the commands never parse them again.
template <class Name>
std::vector<Name> typed_names(const std::vector<std::string>& names, std::optional<Name> (*parse)(std::string_view),
                              const char* flag, const std::string& valid_list) {
  std::vector<Name> out;
  for (const auto& n : names) {
    const auto name = parse(n);
    if (!name) throw UserError(fmt::format("unknown value '{}' for {} (valid: {})", n, flag, valid_list));
    out.push_back(*name);
  }
  return out;
}

// The flags read as text and typed once the whole line is parsed: CLI11's
// errors first, then these, among themselves in the order users have always
// seen them. All of them come before what planning finds (a suite file that
// cannot be read, an unknown case): --shard is checked here, not when planning.
struct CliSelectionText {
  std::vector<std::string> cache_policies, precisions;
  std::string shard, affinity;
  std::string count;  // --count (run, measure, bisect)
};
struct CliRunText {
  CliSelectionText selection;
  std::string ceilings = "auto", resume;
};


// A finite number in (lo, hi], or [lo, hi] when closed: CLI::Range lets NaN through.
CLI::Validator finite_number(double lo, double hi, bool closed = false) {
  return CLI::Validator(
      [=](std::string& v) {
        double x = 0;
        const bool ok = CLI::detail::lexical_cast(v, x) && std::isfinite(x) && (closed ? x >= lo : x > lo) && x <= hi;
        if (ok) return std::string();
        return fmt::format("must be a finite number {} {:g} and <= {:g}", closed ? ">=" : ">", lo, hi);
      },
      fmt::format("FLOAT in {}{:g} - {:g}]", closed ? "[" : "(", lo, hi));
}

constexpr char kSetOpen = 0x7b;  // the brace that opens CLI::IsMember's description

// CLI11 shows an option's type followed by each validator's description
// (`TEXT:TEXT`, `INT:INT in [1 - 1000]`): one type each, the most precise
// (`INT in [1 - 1000]`), validators that only refuse a value adding nothing.
void tidy_type_names(CLI::App& app) {
  for (auto* opt : app.get_options()) {
    const auto full = opt->get_type_name();
    std::string shown;
    for (std::size_t at = 0; at <= full.size();) {
      auto end = full.find(':', at);
      if (end == std::string::npos) end = full.size();
      const auto part = full.substr(at, end - at);
      at = end + 1;
      if (part.empty() || part == shown) continue;
      const bool member_set = part.front() == kSetOpen;  // CLI::IsMember's {a,b,c} says it all
      if (shown.empty() || part.starts_with(shown + " ") || member_set) shown = part;
      else shown += " " + part;
    }
    for (int i = 0;; ++i) {
      try {
        opt->get_validator(i)->description("");
      } catch (const CLI::OptionNotFound&) {
        break;
      }
    }
    opt->type_name(shown);
  }
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) tidy_type_names(*sub);
}

// A value that must name something: "" is refused, never taken as absent
// (`--resume ""` once ran the whole default suite instead).
const CLI::Validator kNonEmpty(
    [](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); }, "");

constexpr const char* kPythonHelp =
    "interpreter whose packages are benchmarked (default: $JITBENCH_PYTHON, else the Python of the environment "
    "jitbench is installed in, else the source tree's .venv)";

// How each case is measured: shared by `run`, `plan` and `measure`.
void add_measurement(CLI::App* cmd, RunOptions& run, CliSelectionText& text) {
  cmd->add_option("--backends", run.backends, "comma-separated backends (see `jitbench list`)")->delimiter(',');
  cmd->add_option("--cache-policy", text.cache_policies, "comma-separated cache policies")->delimiter(',');
  cmd->add_option("--precision", text.precisions,
                  "comma-separated matmul precisions: default (each framework's own), highest (IEEE float32)")
      ->delimiter(',');
  cmd->add_option("--env", run.envs,
                  "measure every case in a pinned environment: [NAME:]REQ;REQ... (repeatable; docs/environments.md)")
      ->check(kNonEmpty);
  cmd->add_option("--env-var", run.env_vars, "NAME:VARIABLE=VALUE, set in environment NAME's workers (repeatable)")
      ->check(kNonEmpty);
  cmd->add_option("--find-links", run.find_links, "a directory of wheels the environments' installer may use")
      ->check(kNonEmpty);
  cmd->add_flag("--no-index", run.no_index, "build environments from --find-links alone, without a package index");
}

// --count instructions[:SOURCE], --count-runs, --jobs: shared by `run`, `measure` and `bisect`.
void add_counting(CLI::App* cmd, RunOptions& run, std::string& count) {
  cmd->add_option("--count", count,
                  "count each case's instructions per phase in processes of their own, after the timed ones: "
                  "instructions (a hardware counter where one opens, else valgrind), instructions:valgrind, "
                  "instructions:hardware (docs/noise.md)")
      ->check(CLI::IsMember({"instructions", "instructions:valgrind", "instructions:hardware"}));
  cmd->add_option("--count-runs", run.count_runs, "--count: counting processes per case (default 2, at least 2)")
      ->check(CLI::Range(2L, limits::kMaxColdRuns));
  cmd->add_option("--jobs", run.jobs, "--count: counting processes at a time (default: the number of CPUs); timed "
                                      "processes always run one at a time")
      ->check(CLI::Range(1L, 4096L));
}

// --count's text typed; --count-runs and --jobs without it are refused.
void type_counting(const std::string& count, RunOptions& run, bool suite_may_count) {
  if (!count.empty()) {
    run.count = true;
    const auto colon = count.find(':');
    run.count_source = colon == std::string::npos ? "" : count.substr(colon + 1);
  }
  if (!run.count && !suite_may_count && (run.count_runs || run.jobs))
    throw UserError("--count-runs and --jobs are --count's: add --count instructions");
}

// `run`'s own: how the environments of one case are ordered.
void add_interleaving(CLI::App* cmd, RunOptions& run) {
  cmd->add_flag("--no-interleave", run.no_interleave,
                "run one case's environments one after the other (default: their cold processes round-robin, so "
                "that a drift of the machine lands on each; docs/noise.md)");
}

// What selects the cases: shared by `run` and `plan`, so both make the same plan.
void add_selection(CLI::App* cmd, RunOptions& run, CliSelectionText& text) {
  cmd->add_option("--suite", run.suite_file, "suite file (TOML; see docs/suite-format.md)")->check(kNonEmpty);
  cmd->add_option("--cases", run.cases, "comma-separated <workload>_<n>_<f32|f64>, e.g. matmul_512_f32")->delimiter(',');
  add_measurement(cmd, run, text);
  cmd->add_option("--workload-path", run.workload_paths,
                  "a Python file defining a user workload (repeatable; docs/user-workloads.md)")
      ->check(kNonEmpty);
  cmd->add_option("--shard", text.shard, "K/N: only the K-th of N disjoint, cost-balanced shards of the plan")
      ->check(kNonEmpty);
  cmd->add_option("--costs", run.costs_dir, "an earlier run's out dir: its measured case times balance the shards")
      ->check(kNonEmpty);
}

// How often each case is measured, and for how long a worker may take.
void add_repetitions(CLI::App* cmd, RunOptions& run, const char* cold_help, const char* warm_runs_help) {
  using namespace limits;
  cmd->add_option("--cold-runs", run.cold_runs, cold_help)->check(CLI::Range(1L, kMaxColdRuns));
  cmd->add_option("--warm-iters", run.warm_iters, "timed calls in each warm process (default: the suite's warm_iters, 30 in the default suite; without one, calls until at least 5 of them and 0.5 s, at most 1000)")
      ->check(CLI::Range(0L, kMaxWarmIters));
  cmd->add_option("--warm-runs", run.warm_runs, warm_runs_help)->check(CLI::Range(1L, kMaxWarmRuns));
  cmd->add_option("--timeout", run.timeout_s, "seconds before a worker is killed (default 300)")
      ->check(finite_number(0, kMaxTimeoutS));
  cmd->add_option("--target-ci", run.target_ci_pct,
                  "add processes per case until the 95% interval of the median is within +-PCT % (cold TTFR, warm "
                  "per-process medians; warm calls likewise)")
      ->check(finite_number(0, kMaxTargetCiPct));
  cmd->add_option("--min-runs", run.min_runs, "--target-ci: processes per side at least (default 5)")
      ->check(CLI::Range(kMinTargetRuns, kMaxColdRuns));
  cmd->add_option("--max-runs", run.max_runs, "--target-ci: processes per side at most (default 30)")
      ->check(CLI::Range(1L, kMaxColdRuns));
  cmd->add_option("--max-time", run.max_time_s, "--target-ci: seconds of sampling per case and side, at most")
      ->check(finite_number(0, kMaxTimeoutS));
}

// Where the workers run: shared by `run`, `measure` and `bisect` (checked against the online CPUs when the run starts).
void add_affinity(CLI::App* cmd, CliSelectionText& text) {
  cmd->add_option("--affinity", text.affinity,
                  "pin every worker to these CPUs, a list like 0,2-3 (sched_setaffinity; recorded in "
                  "environment.json; see jitbench doctor)")
      ->check(kNonEmpty);
}

// --anatomy and --anatomy-runs, with the words of the command that takes them.
void add_anatomy(CLI::App* cmd, RunOptions& run, const std::string& what, const std::string& per) {
  cmd->add_flag("--anatomy", run.anatomy, what);
  cmd->add_option("--anatomy-runs", run.anatomy_runs, "--anatomy: processes per " + per + " (default 3)")
      ->check(CLI::Range(1L, limits::kMaxColdRuns));
}

// What a run records beside its measurements: shared by `run` and `measure`.
void add_anatomy_and_machine(CLI::App* cmd, RunOptions& run) {
  add_anatomy(cmd, run,
              "break each JIT case's first call down by the framework's own instrumentation (profiler, pass "
              "timers), in processes of their own after the measured ones (docs/anatomy.md)",
              "case");
  cmd->add_option("--machine", run.machine,
                  "a label for this machine (e.g. ci-x86-2core): published snapshots are grouped by it instead of "
                  "the hardware jitbench reads")
      ->check(kNonEmpty)
      ->check(CLI::Validator(
          [](std::string& v) { return v.size() > 200 ? std::string("must be at most 200 characters") : std::string(); },
          ""));
}

CLI::App* add_run(CLI::App& app, RunOptions& run, CliRunText& text) {
  auto* cmd = app.add_subcommand("run", "run a suite (the embedded default unless --suite)");
  cmd->add_option("--out-dir", run.out_dir, "new or empty directory for the results (default jitbench-out/run-<time>)")
      ->check(kNonEmpty);
  add_selection(cmd, run, text.selection);
  cmd->add_option("--resume", text.resume,
                  "finish an interrupted run or shard in its own out dir: re-measure only its missing or "
                  "interrupted cases (the command comes from its index; give no other option but --quiet)")
      ->check(kNonEmpty);
  cmd->add_option("--python", run.python, kPythonHelp)
      ->check(kNonEmpty);
  cmd->add_flag("--deterministic", run.deterministic, "single-threaded math, fixed hash seed, no timestamps");
  add_repetitions(cmd, run, "fresh-process runs per case (default 5)",
                  "warm processes per case (default 1; compare needs 4+ to test warm calls)");
  add_affinity(cmd, text.selection);
  cmd->add_flag("--quiet,-q", run.quiet, "print only the final summary line");
  add_interleaving(cmd, run);
  add_anatomy_and_machine(cmd, run);
  add_counting(cmd, run, text.selection.count);
  cmd->add_option("--ceilings", text.ceilings,
                  "measure the machine's peak GEMM GFLOP/s and copy bandwidth (~1-2 s): auto (when a native floor "
                  "case is planned), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  return cmd;
}

// `jitbench measure TARGET`: the run's measurement options, no selection of cases (TARGET is the case).
CLI::App* add_measure(CLI::App& app, MeasureOptions& m, CliSelectionText& text) {
  auto* cmd = app.add_subcommand("measure", "measure your own jitted function against its eager baseline "
                                            "(docs/your-code.md)");
  cmd->add_option("target", m.target, "path/to/file.py:name or package.module:name")->required()->check(kNonEmpty);
  cmd->add_option("--inputs", m.inputs, "module:factory or file.py:factory returning the argument tuple "
                                        "(default: TARGET's make_inputs)")->check(kNonEmpty);
  cmd->add_option("--check", m.check, "module:fn or file.py:fn: check(out, inputs) -> bool or a verify dict "
                                      "(default: compared with the eager function in float64)")->check(kNonEmpty);
  cmd->add_option("--name", m.name, "the workload's name in case ids (default: TARGET's function name)")
      ->check(kNonEmpty);
  cmd->add_option("--out-dir", m.run.out_dir, "new or empty directory for the results (default jitbench-out/run-<time>)")
      ->check(kNonEmpty);
  add_measurement(cmd, m.run, text);
  cmd->add_option("--python", m.run.python, kPythonHelp)
      ->check(kNonEmpty);
  add_repetitions(cmd, m.run, "fresh-process runs per case (default 5)",
                  "warm processes per case (default 1; compare needs 4+ to test warm calls)");
  add_affinity(cmd, text);
  add_counting(cmd, m.run, text.count);
  cmd->add_flag("--quiet,-q", m.run.quiet, "print only the final summary line");
  add_anatomy_and_machine(cmd, m.run);
  return cmd;
}

CLI::App* add_compare(CLI::App& app, CompareOptions& compare) {
  auto* cmd = app.add_subcommand("compare", "compare two runs case by case, with statistical tests");
  cmd->add_option("base", compare.base, "out dir of the baseline run")->required();
  cmd->add_option("new", compare.next, "out dir of the new run")->required();
  auto* gate = cmd->add_option("--fail-on-regression", compare.fail_on_regression_pct,
                               "exit 1 when a metric is significantly worse and its ratio CI lies above 1+PCT/100")
                   ->check(finite_number(0, 1e9));
  cmd->add_option("--alpha", compare.alpha, "significance level of the Mann-Whitney U test (default 0.05)")
      ->check(finite_number(1e-6, 0.5, true));
  cmd->add_option("--csv", compare.csv, "also write every comparison row to this CSV file");
  cmd->add_option("--pyperf", compare.pyperf_base,
                  "also export both runs as pyperf JSON: PREFIX.base.json and PREFIX.new.json");
  cmd->add_option("--noise-floor", compare.noise_floor,
                  "a `jitbench noise` out dir: its smallest detectable regression beside each verdict, and a warning "
                  "when --fail-on-regression is below it")->check(kNonEmpty);
  cmd->add_flag("--strict", compare.strict,
                "with --noise-floor: refuse (exit 11) a --fail-on-regression below a compared case's noise floor");
  auto* again = cmd->add_option("--remeasure", compare.remeasure,
                                "new or empty directory: measure the cases of BASE's and NEW's recorded commands "
                                "again, side by side (cold processes interleaved), into DIR/base and DIR/new, and "
                                "compare those")
                    ->check(kNonEmpty);
  cmd->add_flag("--no-remeasure", compare.no_remeasure,
                "with --fail-on-regression: judge the rows as measured; by default a row that would fail while "
                "either side was not quiet is measured again, interleaved, beside NEW (NEW.remeasure) first")
      ->needs(gate)
      ->excludes(again);
  cmd->add_option("--format", compare.format,
                  "what to print on stdout: text (the table), markdown (a job summary's table) or json "
                  "(jitbench.compare.v1)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CompareFormat>{
              {"text", CompareFormat::Text}, {"markdown", CompareFormat::Markdown}, {"json", CompareFormat::Json}},
          CLI::ignore_case));
  return cmd;
}

constexpr const char* kCommands = "run, measure, plan, merge, bisect, noise, list, validate, report, compare, "
                                  "publish, replicate, sign, verify, doctor, envs";

void check_command_name(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  for (const char* c : {"run", "measure", "plan", "merge", "bisect", "noise", "list", "validate", "report", "compare",
                        "publish", "replicate", "sign", "verify", "doctor", "envs"})
    if (first == c) return;
  if (!first.empty() && first[0] != '-')
    throw UserError(fmt::format("unknown command '{}' (valid: {}; see jitbench --help)", argv[1], kCommands));
}

// Reading what is here: list, validate, report, doctor.
struct Inspecting {
  ListOptions list;
  ValidateOptions validate;
  ReportOptions report;
  DoctorOptions doctor;
  CLI::App *list_cmd = nullptr, *report_cmd = nullptr, *doctor_cmd = nullptr;
};

void add_doctor(CLI::App& app, Inspecting& i) {
  auto* cmd = i.doctor_cmd =
      app.add_subcommand("doctor", "check this machine for benchmarking (governor, turbo, SMT, load, steal, "
                                   "threads, VM...): what each finding means and what to do; changes nothing");
  cmd->add_flag("--json", i.doctor.json, "print the findings as JSON (jitbench.doctor.v1)");
  cmd->add_flag("--strict", i.doctor.strict, "exit 10 when a check warns (default: 0, the findings are advice)");
  cmd->add_option("--root", i.doctor.root, "read /proc and /sys below this directory (default /)")->check(kNonEmpty);
  cmd->add_option("--sample", i.doctor.sample_s, "seconds over which CPU busy and steal time are sampled (default 0.5)")
      ->check(finite_number(0, 60, true));
}

void add_inspection(CLI::App& app, Inspecting& i) {
  i.list_cmd = app.add_subcommand("list", "show every backend and workload, and whether it can run here");
  i.list_cmd->add_option("--python", i.list.python, "interpreter to probe");
  i.list_cmd->add_flag("--json", i.list.json, "print the probe as JSON");
  i.list_cmd->add_flag("--check-devices", i.list.check_devices, "also initialise GPU backends to see a GPU (slower)");
  app.add_subcommand("validate", "check an out dir's artifacts against their schemas and sha256")
      ->add_option("dir", i.validate.dir, "the out dir of a jitbench run")->required();
  i.report_cmd = app.add_subcommand("report", "write a self-contained HTML report (and Markdown) of a run");
  i.report_cmd->add_option("dir", i.report.dir, "the out dir of a jitbench run")->required();
  i.report_cmd->add_option("--python", i.report.python, "interpreter with matplotlib (default: the project's .venv)");
  add_doctor(app, i);
}

// `jitbench envs list|rm|prune`: the environment cache.
struct EnvsCommand {
  EnvsOptions opts;
  CLI::App *cmd = nullptr, *list = nullptr, *rm = nullptr, *prune = nullptr;
};

void add_envs(CLI::App& app, EnvsCommand& e) {
  e.cmd = app.add_subcommand("envs", "the pinned environments jitbench built (docs/environments.md): list, remove, "
                                     "prune");
  e.cmd->require_subcommand(1);
  e.list = e.cmd->add_subcommand("list", "each environment: name, requirements, held date, size (hard links counted "
                                         "once), last use, the runs that used it");
  e.list->add_flag("--json", e.opts.json, "print the cache as JSON (jitbench.envs.v1)");
  e.rm = e.cmd->add_subcommand("rm", "remove one environment jitbench made, unless a run is using it");
  e.rm->add_option("env", e.opts.target, "its name or hash (or a unique prefix of 4+ characters of the hash)")
      ->required()->check(kNonEmpty);
  e.prune = e.cmd->add_subcommand("prune", "remove the least recently used environments and the half-built ones "
                                           "(never one in use)");
  e.prune->add_option("--older-than", e.opts.older_than_days, "remove those last used more than DAYS days ago")
      ->check(finite_number(0, 1e6, true));
  e.prune->add_option("--max-size", e.opts.max_size_gb,
                      "then remove the least recently used until the cache holds at most GB gigabytes (1e9 bytes)")
      ->check(finite_number(0, 1e6, true));
  e.prune->add_flag("--stale", e.opts.stale,
                    "also remove those whose hash this jitbench computes differently now (another uv, changed "
                    "wheels); one whose hash cannot be computed is kept");
  e.prune->add_flag("--dry-run", e.opts.dry_run, "say what would be removed; remove nothing");
}

Command typed_envs(EnvsCommand e) {
  e.opts.action = *e.rm ? EnvsAction::Remove : *e.prune ? EnvsAction::Prune : EnvsAction::List;
  return e.opts;
}

// Publishing: snapshots into a site, replication, signatures (docs/publishing.md).
struct PublishingCommands {
  PublishOptions publish;
  ReplicateOptions replicate;
  SignOptions sign;
  VerifyOptions verify;
  CLI::App *publish_cmd = nullptr, *replicate_cmd = nullptr, *sign_cmd = nullptr, *verify_cmd = nullptr;
};

void add_publish(CLI::App& app, PublishingCommands& p) {
  auto* cmd = p.publish_cmd = app.add_subcommand("publish", "publish a run into a site: registry, snapshot, history page");
  cmd->add_option("run", p.publish.run, "the out dir of a complete jitbench run")->required()->check(kNonEmpty);
  cmd->add_option("--to", p.publish.site, "the site directory (created when absent)")->required()->check(kNonEmpty);
  cmd->add_option("--id", p.publish.id, "the snapshot's id (default: <run start>-<index sha256 prefix>)")
      ->check(kNonEmpty);
  cmd->add_option("--allowed-signers", p.publish.allowed_signers,
                  "OpenSSH allowed-signers file: a signed run's signer is checked and named on the site");
  cmd->add_option("--python", p.publish.python, "interpreter with matplotlib (default: the project's .venv)");
  cmd->add_option("--gate", p.publish.gate_pct, "flag steps significantly worse by more than PCT percent (default 10)")
      ->check(finite_number(0, 1e6, true));
  cmd->add_option("--alpha", p.publish.alpha, "significance level of the gate's test (default 0.05)")
      ->check(finite_number(1e-6, 0.5, true));
}

void add_replicate(CLI::App& app, PublishingCommands& p) {
  auto* cmd = p.replicate_cmd =
      app.add_subcommand("replicate", "measure a snapshot's plan again and compare it with the original");
  cmd->add_option("snapshot", p.replicate.snapshot, "a published snapshot (SITE/snapshots/ID) or a run's out dir")
      ->required()->check(kNonEmpty);
  cmd->add_option("--out-dir", p.replicate.out_dir, "new or empty directory for the replica")->required()
      ->check(kNonEmpty);
  cmd->add_option("--python", p.replicate.python,
                  "interpreter for the replica when the original used no pinned environment (default: .venv)")
      ->check(kNonEmpty);
  cmd->add_option("--allowed-signers", p.replicate.allowed_signers,
                  "check the original's signature against these signers first");
  cmd->add_option("--machine", p.replicate.machine, "a label for the machine the replica runs on")->check(kNonEmpty);
  cmd->add_option("--tolerance", p.replicate.tolerance_pct,
                  "a metric differs when significantly different by more than PCT percent (default 10)")
      ->check(finite_number(0, 1e6, true));
  cmd->add_option("--alpha", p.replicate.alpha, "significance level (default 0.05)")
      ->check(finite_number(1e-6, 0.5, true));
  cmd->add_flag("--quiet,-q", p.replicate.quiet, "print only the verdict");
}

void add_signing(CLI::App& app, PublishingCommands& p) {
  p.sign_cmd = app.add_subcommand("sign", "sign a run's index (and its replication report) with ssh-keygen -Y sign");
  p.sign_cmd->add_option("dir", p.sign.dir, "the out dir of a jitbench run")->required()->check(kNonEmpty);
  p.sign_cmd->add_option("--key", p.sign.key, "an OpenSSH private key (or a public key whose private half is in "
                                              "ssh-agent)")->required()->check(kNonEmpty);
  p.verify_cmd = app.add_subcommand("verify", "the signature, then everything validate checks, then cross-references");
  p.verify_cmd->add_option("dir", p.verify.dir, "the out dir of a signed jitbench run")->required()->check(kNonEmpty);
  p.verify_cmd->add_option("--allowed-signers", p.verify.allowed_signers, "OpenSSH allowed-signers file")
      ->required()->check(kNonEmpty);
}

void add_publishing(CLI::App& app, PublishingCommands& p) {
  add_publish(app, p);
  add_replicate(app, p);
  add_signing(app, p);
}

// bisect --metric: a time bisect knows, or a counted phase's instructions ("" when it is one).
std::string bisect_metric_problem(std::string& v) {
  static const std::vector<std::string> kTimes = {"import", "first_call", "compile", "ttfr", "process_ttfr", "warm"};
  static const std::vector<std::string> kPhases = {"import", "setup", "first_call", "ttfr", "second_call", "warm_call"};
  if (std::find(kTimes.begin(), kTimes.end(), v) != kTimes.end()) return "";
  const std::string prefix = "instructions_";
  if (v.starts_with(prefix)) {
    const auto phase = v.substr(prefix.size());
    if (std::find(kPhases.begin(), kPhases.end(), phase) != kPhases.end() ||
        (phase.starts_with("first_call.") && phase.size() > 11))
      return "";
  }
  return fmt::format("'{}' is not a metric bisect knows (import, first_call, compile, ttfr, process_ttfr, warm, "
                     "instructions_<phase>)", v);
}

CLI::App* add_bisect(CLI::App& app, BisectOptions& b, CliSelectionText& text) {
  auto* cmd = app.add_subcommand("bisect", "find the release of a package (or the commit of a repository) that made "
                                           "a metric worse");
  cmd->add_option("target", b.target, "your function, as `measure` takes it: path/to/file.py:name or "
                                      "package.module:name (instead of --suite/--cases/--workload-path)")
      ->check(kNonEmpty);
  cmd->add_option("--inputs", b.inputs, "with TARGET: module:factory or file.py:factory returning the argument tuple "
                                        "(default: TARGET's make_inputs)")->check(kNonEmpty);
  cmd->add_option("--check", b.check, "with TARGET: module:fn or file.py:fn, check(out, inputs) -> bool or a verify "
                                      "dict")->check(kNonEmpty);
  cmd->add_option("--name", b.name, "with TARGET: the workload's name in case ids (default: TARGET's function name)")
      ->check(kNonEmpty);
  cmd->add_option("--package", b.package, "the package whose releases are bisected (e.g. jax); with --git, its name "
                                          "(default: the repository's directory)")->check(kNonEmpty);
  cmd->add_option("--git", b.git, "a local git repository: bisect its commits between --good and --bad, each "
                                  "exported and installed with no network (docs/bisect-git.md)")->check(kNonEmpty);
  cmd->add_option("--good", b.good, "a release (with --git: a revision) without the regression")->required()
      ->check(kNonEmpty);
  cmd->add_option("--bad", b.bad, "a later release (with --git: a descendant revision) with it")->required()
      ->check(kNonEmpty);
  cmd->add_option("--versions", b.versions, "the candidates, oldest first (default: every release between them)")
      ->delimiter(',');
  cmd->add_option("--with,--install-extra", b.with,
                  "a further requirement of every step, {} standing for the version or commit (jaxlib=={})");
  cmd->add_option("--metric", b.metric,
                  "import, first_call, compile, ttfr, process_ttfr, warm, or a phase's instruction count: "
                  "instructions_import, _setup, _first_call, _ttfr, _second_call, _warm_call or _first_call.<stage> "
                  "(counted with --count instructions; default ttfr)")
      ->check(CLI::Validator(bisect_metric_problem, "METRIC"));
  cmd->add_option("--threshold", b.threshold_pct, "a regression is more than PCT percent, with confidence (default 10)")
      ->check(finite_number(0, 1e6, true));
  cmd->add_option("--alpha", b.alpha, "significance level of the Mann-Whitney U test (default 0.05)")
      ->check(finite_number(1e-6, 0.5, true));
  cmd->add_option("--out-dir", b.out_dir, "new or empty directory: one run per step, bisect.json")->required()
      ->check(kNonEmpty);
  auto& run = b.selection;
  add_selection(cmd, run, text);
  add_repetitions(cmd, run, "fresh-process runs per case and step (default 5)",
                  "warm processes per case (default 1; --metric warm wants 4+)");
  add_affinity(cmd, text);
  cmd->add_flag("--quiet,-q", run.quiet, "print only the conclusion");
  add_anatomy(cmd, run,
              "take the compile anatomy at the boundary's confirmation only, and report the sub-phases that moved "
              "there (docs/anatomy.md)",
              "case and confirmation run");
  add_counting(cmd, run, text.count);
  cmd->add_option("--noise-floor", b.noise_floor,
                  "a `jitbench noise` out dir: warn when --threshold is below its floor for the bisected metric")
      ->check(kNonEmpty);
  cmd->add_flag("--strict", b.strict, "with --noise-floor: refuse (exit 11) a --threshold below the floor");
  return cmd;
}

// `jitbench noise`: run's selection and counts, twice, interleaved.
CLI::App* add_noise(CLI::App& app, NoiseOptions& n, CliSelectionText& text) {
  auto* cmd = app.add_subcommand("noise", "measure each case twice, interleaved (an A/A comparison): the smallest "
                                          "regression this machine can detect per case and metric (docs/noise.md)");
  cmd->add_option("--out-dir", n.run.out_dir, "new or empty directory: a/ and b/ (two runs) and noise.json")
      ->required()->check(kNonEmpty);
  auto& run = n.run;
  add_selection(cmd, run, text);
  cmd->add_option("--python", run.python, kPythonHelp)
      ->check(kNonEmpty);
  add_repetitions(cmd, run, "fresh-process runs per case and side (default 5)",
                  "warm processes per case and side (default 1; 4+ to know warm calls' floor)");
  cmd->add_option("--alpha", n.alpha, "significance level of the gate the floor is computed for (default 0.05)")
      ->check(finite_number(1e-6, 0.5, true));
  cmd->add_flag("--no-interleave", run.no_interleave,
                "side A's processes, then side B's (to see what interleaving removes; docs/noise.md)");
  cmd->add_flag("--quiet,-q", run.quiet, "print only the final lines");
  return cmd;
}

// The selection's names checked and typed (backends stay the catalog's names).
void type_selection(const CliSelectionText& text, RunOptions& run) {
  check_names(run.backends, is_backend, "--backends", backend_names());
  run.cache_policies = typed_names(text.cache_policies, parse_cache_policy, "--cache-policy", cache_policy_names());
  run.precisions = typed_names(text.precisions, parse_precision, "--precision", precision_names());
  if (!run.costs_dir.empty() && text.shard.empty())
    throw UserError("--costs balances shards: give it with --shard K/N");
  if (!text.affinity.empty()) {
    auto cpus = parse_cpu_list(text.affinity);
    if (auto* why = std::get_if<std::string>(&cpus))
      throw UserError(fmt::format("--affinity '{}': {}", text.affinity, *why));
    run.affinity = std::get<std::vector<int>>(cpus);
  }
}

// --shard K/N, range-checked (plan/shard.h); none when not given.
std::optional<ShardSpec> typed_shard(const std::string& text) {
  if (text.empty()) return std::nullopt;
  auto spec = parse_shard_spec(text);
  if (auto* e = std::get_if<std::string>(&spec)) throw UserError(*e);
  return std::get<ShardSpec>(spec);
}

// --target-ci picks the counts: a fixed count beside it, or a bound without
// it, would be silently ignored.
void check_sampling(const RunOptions& run) {
  if (run.target_ci_pct) {
    if (run.cold_runs || run.warm_runs)
      throw UserError("--target-ci picks the number of runs: leave out --cold-runs and --warm-runs (bound it with "
                      "--min-runs and --max-runs)");
    if (run.deterministic)
      throw UserError("--deterministic keeps fixed counts (its artifacts must not depend on timings): leave out "
                      "--target-ci");
  } else if (run.min_runs || run.max_runs || run.max_time_s) {
    throw UserError("--min-runs, --max-runs and --max-time bound --target-ci: add --target-ci PCT");
  }
  if (run.min_runs && run.max_runs && *run.max_runs < *run.min_runs)
    throw UserError(fmt::format("--max-runs {} is below --min-runs {}", *run.max_runs, *run.min_runs));
}

// `jitbench run`: a run, or with --resume DIR (alone) the resumption of one.
Command typed_run(RunOptions run, const CliRunText& text) {
  type_selection(text.selection, run);
  type_counting(text.selection.count, run, !run.suite_file.empty());
  check_sampling(run);
  const bool other = !run.suite_file.empty() || !run.cases.empty() || !run.backends.empty() ||
                     !run.cache_policies.empty() || !run.precisions.empty() || !run.workload_paths.empty() ||
                     !text.selection.shard.empty() || !run.costs_dir.empty() || !run.out_dir.empty() ||
                     run.cold_runs || !run.envs.empty() || !run.env_vars.empty() || !run.find_links.empty() ||
                     run.no_index || run.warm_iters || run.warm_runs || run.timeout_s || run.deterministic ||
                     !run.python.empty() || text.ceilings != "auto" || !run.machine.empty() || run.target_ci_pct ||
                     run.min_runs || run.max_runs || run.max_time_s || !run.affinity.empty() || run.no_interleave ||
                     run.anatomy || run.anatomy_runs || !text.selection.count.empty() || run.count_runs || run.jobs;
  if (!text.resume.empty()) {
    if (other) throw UserError("--resume takes the command from the run's own index: give it alone (--quiet excepted)");
    return ResumeOptions{text.resume, run.quiet};
  }
  run.shard = typed_shard(text.selection.shard);
  run.ceilings = text.ceilings == "on" ? CeilingsMode::On : text.ceilings == "off" ? CeilingsMode::Off
                                                                                  : CeilingsMode::Auto;
  return run;
}

Command typed_measure(MeasureOptions m, const CliSelectionText& text) {
  type_selection(text, m.run);
  type_counting(text.count, m.run, false);
  check_sampling(m.run);
  return m;
}

CLI::App* add_merge(CLI::App& app, MergeOptions& merge) {
  auto* cmd = app.add_subcommand("merge", "merge the out dirs of a plan's shards into one verified run");
  cmd->add_option("out", merge.out, "new or empty directory for the merged run")->required();
  cmd->add_option("shards", merge.shards, "the shards' out dirs (jitbench run --shard K/N)")->required();
  return cmd;
}

Command typed_merge(MergeOptions merge) {
  if (merge.out.empty() || std::any_of(merge.shards.begin(), merge.shards.end(), [](auto& d) { return d.empty(); }))
    throw UserError("merge: a directory given is empty text: name the merged run's directory and each shard's");
  return merge;
}

void check_bisect(const BisectOptions& b, RunOptions& selection, const CliSelectionText& text) {
  if (b.git.empty() && b.package.empty())
    throw UserError("bisect: give --package P (its releases are bisected) or --git REPO (its commits are)");
  if (!b.git.empty() && !b.versions.empty())
    throw UserError("bisect --git: the candidates are the commits between --good and --bad; leave out --versions");
  if (b.strict && b.noise_floor.empty())
    throw UserError("--strict refuses a threshold below the noise floor: give --noise-floor D too");
  if (selection.anatomy_runs && !selection.anatomy)
    throw UserError("bisect: --anatomy-runs counts the anatomy processes of the boundary's confirmation: add --anatomy");
  type_selection(text, selection);
  // A bisected instruction count is counted at every step.
  type_counting(text.count, selection, !selection.suite_file.empty() || b.metric.starts_with("instructions_"));
  if (b.metric.starts_with("instructions_")) selection.count = true;
  check_sampling(selection);
  if (!text.shard.empty() || !selection.envs.empty() || !selection.env_vars.empty())
    throw UserError("bisect makes one environment per release and runs whole plans: leave out --shard, --env and "
                    "--env-var");
  if (b.target.empty() && (!b.inputs.empty() || !b.check.empty() || !b.name.empty()))
    throw UserError("bisect: --inputs, --check and --name go with a TARGET (file.py:name or package.module:name), "
                    "as `measure` takes them");
  if (!b.target.empty() && (!selection.suite_file.empty() || !selection.cases.empty() ||
                            !selection.workload_paths.empty() || !selection.costs_dir.empty()))
    throw UserError(fmt::format("bisect {}: a TARGET is what every step measures: leave out --suite, --cases, "
                                "--workload-path and --costs", b.target));
}
Command typed_plan(PlanOptions plan, const CliSelectionText& text) {
  type_selection(text, plan.selection);
  plan.selection.shard = typed_shard(text.shard);
  return plan;
}

Command typed_bisect(BisectOptions b, const CliSelectionText& text) {
  check_bisect(b, b.selection, text);
  return b;
}

Command typed_noise(NoiseOptions n, const CliSelectionText& text) {
  type_selection(text, n.run);
  check_sampling(n.run);
  if (!text.shard.empty() || !n.run.envs.empty() || !n.run.env_vars.empty())
    throw UserError("noise measures the run's own interpreter, whole plans: leave out --shard, --env and --env-var");
  return n;
}

Command typed_compare(const CompareOptions& c) {
  if (c.strict && c.noise_floor.empty())
    throw UserError("--strict refuses a threshold below the noise floor: give --noise-floor D too");
  return c;
}
}  // namespace

Command parse_command_line(int argc, char** argv) {
  CLI::App app{"jitbench: what just-in-time compilation really costs, measured in fresh processes"};
  app.set_version_flag("--version", jitbench_version());
  app.require_subcommand(1);
  RunOptions run;
  CliRunText run_text;
  CompareOptions compare;
  auto* run_cmd = add_run(app, run, run_text);
  Inspecting inspecting;
  add_inspection(app, inspecting);
  auto* compare_cmd = add_compare(app, compare);
  MeasureOptions measure;
  CliSelectionText measure_text;
  auto* measure_cmd = add_measure(app, measure, measure_text);
  PlanOptions plan;
  CliSelectionText plan_text, bisect_text;
  auto* plan_cmd = app.add_subcommand("plan", "list the cases `run` would measure, in order, with stable ids");
  add_selection(plan_cmd, plan.selection, plan_text);
  plan_cmd->add_flag("--json", plan.json, "print the plan as JSON (jitbench.plan.v1)");
  BisectOptions bisect;
  auto* bisect_cmd = add_bisect(app, bisect, bisect_text);
  NoiseOptions noise;
  CliSelectionText noise_text;
  auto* noise_cmd = add_noise(app, noise, noise_text);
  MergeOptions merge;
  auto* merge_cmd = add_merge(app, merge);
  PublishingCommands publishing;
  add_publishing(app, publishing);
  EnvsCommand envs;
  add_envs(app, envs);
  tidy_type_names(app);

  check_command_name(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return Done{app.exit(e)};
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    if (argc < 2) msg = fmt::format("a command is required: {}", kCommands);
    throw UserError(msg + " (see jitbench --help)");
  }
  if (*run_cmd) return typed_run(std::move(run), run_text);
  if (*measure_cmd) return typed_measure(std::move(measure), measure_text);
  if (*plan_cmd) return typed_plan(std::move(plan), plan_text);
  if (*merge_cmd) return typed_merge(std::move(merge));
  if (*bisect_cmd) return typed_bisect(std::move(bisect), bisect_text);
  if (*noise_cmd) return typed_noise(std::move(noise), noise_text);
  if (*inspecting.list_cmd) return inspecting.list;
  if (*inspecting.report_cmd) return inspecting.report;
  if (*inspecting.doctor_cmd) return inspecting.doctor;
  if (*compare_cmd) return typed_compare(compare);
  if (*envs.cmd) return typed_envs(envs);
  if (*publishing.publish_cmd) return publishing.publish;
  if (*publishing.replicate_cmd) return publishing.replicate;
  if (*publishing.sign_cmd) return publishing.sign;
  if (*publishing.verify_cmd) return publishing.verify;
  return inspecting.validate;
}

RunOptions parse_run_command(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> ptrs;
  for (auto& a : copy) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  if (copy.size() < 2 || (copy[1] != "run" && copy[1] != "measure"))
    throw UserError("the recorded command is not a `jitbench run`");
  const Command cmd = parse_command_line(static_cast<int>(copy.size()), ptrs.data());
  if (const auto* m = std::get_if<MeasureOptions>(&cmd)) return m->run;
  const auto* run = std::get_if<RunOptions>(&cmd);
  if (!run) throw UserError("the recorded command is not a `jitbench run`");
  return *run;
}

}  // namespace jitbench
