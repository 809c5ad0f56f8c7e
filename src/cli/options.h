#pragma once
// Parsed command lines. Parsing lives in cli.cc; the commands only read these.
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "config/catalog.h"
#include "config/names.h"
#include "plan/shard.h"

namespace jitbench {

// An error the user can fix: printed as one line, exit code 2.
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --ceilings: measure the machine's ceilings when the plan has a native floor case, always, or never.
enum class CeilingsMode { Auto, On, Off };

// A user file `measure` keeps under inputs/targets/ (its shim loads that copy).
struct KeptFile {
  std::string source;  // absolute, where the user has it
  std::string file;    // its name under inputs/targets/
  std::string copy;    // the copy the shim was made from and pinned (what the run keeps); "": read source
};

struct RunOptions {
  std::string out_dir;  // "" -> jitbench-out/run-<timestamp>
  std::string suite_file;
  std::string python;
  bool deterministic = false;
  std::optional<int> cold_runs, warm_iters, warm_runs;
  std::optional<double> timeout_s;
  // --target-ci PCT [--min-runs] [--max-runs] [--max-time] (stats/sequential.h)
  std::optional<double> target_ci_pct, max_time_s;
  std::optional<int> min_runs, max_runs;
  std::vector<std::string> cases, backends;
  std::vector<CachePolicy> cache_policies;  // empty: the suite's
  std::vector<Precision> precisions;        // empty: the suite's
  std::vector<std::string> workload_paths;
  std::vector<KeptFile> kept_files;  // set by measure (and by its resume/replicate), never by a flag
  // Set by measure: its workload file's record as the shim made it, so that
  // Python is not started again to import the file for it; never by a flag.
  std::vector<WorkloadInfo> workload_records;
  bool quiet = false;
  CeilingsMode ceilings = CeilingsMode::Auto;
  std::optional<ShardSpec> shard;  // --shard K/N: only the K-th of N shards of the plan
  std::string costs_dir;   // an earlier run whose measured case costs balance the shards
  std::string machine;     // --machine LABEL: what publish groups this run's snapshots by (not the host name)
  // Environments (config/environments.h): --env [NAME:]REQ;REQ..., --env-var NAME:K=V,
  // and what the installer is given (air-gapped clusters, tests).
  std::vector<std::string> envs, env_vars, find_links;
  bool no_index = false;
  // --affinity CPUS: every worker pinned to these CPUs (sorted, no repeats); empty: not pinned.
  std::vector<int> affinity;
  // --no-interleave: one case's environments one after the other, as before
  // (by default their cold processes run round-robin: docs/noise.md).
  bool no_interleave = false;
  // --anatomy [--anatomy-runs N]: each JIT case's compile anatomy in processes
  // of its own (results/anatomy.h); the suite's anatomy key turns it on too.
  bool anatomy = false;
  std::optional<int> anatomy_runs;
  // --count instructions[:valgrind|:hardware] [--count-runs N] [--jobs N]: each
  // case's instructions counted per phase in processes of their own (run/counting.h);
  // the suite's count key turns it on too. count_source "": the hardware counter
  // where one opens, else valgrind.
  bool count = false;
  std::string count_source;
  std::optional<int> count_runs, jobs;
};

// `jitbench run --resume DIR`: finish this interrupted run; its index holds the command.
struct ResumeOptions {
  std::string dir;
  bool quiet = false;
};

// `jitbench measure TARGET`: the user's own function (file.py:name or
// package.module:name) measured like a workload file, against its eager
// baseline (docs/your-code.md). `run` holds the measurement options.
struct MeasureOptions {
  RunOptions run;
  std::string target;
  std::string inputs, check, name;  // "" -> TARGET's make_inputs; compare with the eager baseline; derived
};

// `jitbench plan`: the cases `run` with the same selection would measure.
struct PlanOptions {
  RunOptions selection;
  bool json = false;
};

// `jitbench bisect`: the release of a package (or, with --git, the commit of
// a repository) that made a metric worse.
struct BisectOptions {
  RunOptions selection;  // what is measured at every step (--suite, --cases, --backends, counts, --find-links...)
  // TARGET (file.py:name or package.module:name, as `measure` takes it): every
  // step is a `jitbench measure` of the user's function instead of a run of a
  // selection; "" for a selection. inputs, check, name: measure's own flags.
  std::string target, inputs, check, name;
  std::string package, good, bad;  // with --git: good and bad are revisions; package "" -> the repository's name
  std::string git;                 // --git REPO: the commits between good and bad are the candidates
  std::vector<std::string> versions;  // the candidates, oldest first; empty: every release between good and bad
  std::vector<std::string> with;      // further pins every environment gets ("jaxlib==0.4.38" moves with jax;
                                      // --install-extra is its other name)
  std::string metric = "ttfr";        // import, first_call, compile, ttfr, process_ttfr, warm, instructions_<phase>
  double threshold_pct = 10;          // a regression is larger than this, with confidence
  double alpha = 0.05;
  std::string out_dir;
  std::string noise_floor;  // --noise-floor D: warn (--strict: refuse) a threshold below the floor
  bool strict = false;
};

// `jitbench merge OUT SHARD...`
struct MergeOptions {
  std::string out;
  std::vector<std::string> shards;
};

struct ListOptions {
  std::string python;
  bool json = false;
  bool check_devices = false;
};

struct ValidateOptions {
  std::string dir;
};

struct ReportOptions {
  std::string dir;
  std::string python;
};

// What `compare` prints on stdout: the table (text), the Markdown of a job
// summary, or jitbench.compare.v1's JSON.
enum class CompareFormat { Text, Markdown, Json };

struct CompareOptions {
  std::string base, next;
  std::optional<double> fail_on_regression_pct;
  std::string csv, pyperf_base, pyperf_new;
  double alpha = 0.05;
  std::string noise_floor;  // --noise-floor D: a `jitbench noise` dir, its floor beside each verdict
  bool strict = false;      // --strict: refuse a --fail-on-regression below the floor (exit 11)
  std::string remeasure;    // --remeasure DIR: BASE's and NEW's cases measured again, interleaved, and compared
  // --no-remeasure: --fail-on-regression judges the rows as measured, even on a machine that was not quiet.
  bool no_remeasure = false;
  CompareFormat format = CompareFormat::Text;  // --format text|markdown|json
};

// `jitbench noise --out-dir D`: every selected case measured twice, the two
// sides interleaved (D/a, D/b), and the smallest detectable regression (D/noise.json).
struct NoiseOptions {
  RunOptions run;  // the selection and counts, as `run` takes them; run.out_dir is D
  double alpha = 0.05;
};

// `jitbench publish RUN --to SITE`: a run into a site's registry and history page.
struct PublishOptions {
  std::string run, site, id;
  std::string allowed_signers;  // names who signed the run's index on the site
  std::string python;           // draws the site's figures and the snapshot's report
  double gate_pct = 10, alpha = 0.05;  // compare's gate between consecutive snapshots
};

// `jitbench replicate SNAPSHOT --out-dir DIR`: the same plan measured again, compared.
struct ReplicateOptions {
  std::string snapshot, out_dir, python, allowed_signers;
  std::string machine;  // the replica's --machine label (the original's is not carried over: another machine)
  double tolerance_pct = 10, alpha = 0.05;
  bool quiet = false;
};

// `jitbench sign DIR --key KEY` and `jitbench verify DIR --allowed-signers FILE`.
struct SignOptions {
  std::string dir, key;
};
struct VerifyOptions {
  std::string dir, allowed_signers;
};

// `jitbench doctor`: the machine checked for benchmarking, read-only.
struct DoctorOptions {
  bool json = false;
  bool strict = false;       // a warn exits kExitDoctorWarn (commands/commands.h)
  std::string root = "/";    // /proc and /sys read below this directory
  double sample_s = 0.5;     // how long the CPUs' busy and steal time is sampled
};

// `jitbench envs list|rm|prune`: the environment cache (docs/environments.md).
enum class EnvsAction { List, Remove, Prune };
struct EnvsOptions {
  EnvsAction action = EnvsAction::List;
  bool json = false;             // list --json (jitbench.envs.v1)
  std::string target;            // rm NAME|HASH
  std::optional<double> older_than_days, max_size_gb;  // prune
  bool dry_run = false;          // prune --dry-run: say what would go, remove nothing
  bool stale = false;            // prune --stale: also those whose hash this jitbench computes differently
};

struct Done {
  int exit_code = 0;  // --help, --version
};

using Command = std::variant<RunOptions, NoiseOptions, MeasureOptions, ResumeOptions, ListOptions, ValidateOptions, ReportOptions, CompareOptions,
                             PlanOptions, MergeOptions, BisectOptions, PublishOptions, ReplicateOptions, SignOptions,
                             VerifyOptions, DoctorOptions, EnvsOptions, Done>;

// Throws UserError with a one-line message for bad input.
Command parse_command_line(int argc, char** argv);
// The options of a `jitbench run` command line recorded in an index (argv[0]
// included), for --resume and replicate; of a `jitbench measure`, its
// measurement options (its workload file is the run's recorded input). Throws
// UserError when it is neither (a `jitbench run --resume` is not).
RunOptions parse_run_command(const std::vector<std::string>& argv);

}  // namespace jitbench
