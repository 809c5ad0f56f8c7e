#pragma once
// The steps of `jitbench run` (commands/run.cc), shared with `run --resume`,
// `noise`, `compare --remeasure`, `replicate` and `plan`: the plan and its
// inputs (inputs.cc), the start (start.cc), the environments
// (environments.cc), the case loop (case_loop.cc) and its progress
// (progress.h), and two runs measured side by side (sides.cc).
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "artifacts/out_dir.h"
#include "artifacts/write_run.h"
#include "cli/options.h"
#include "commands/common/common.h"
#include "config/catalog.h"
#include "config/environments.h"
#include "config/input_copies.h"
#include "config/suite.h"
#include "env/environments.h"
#include "env/host.h"
#include "plan/plan.h"
#include "plan/planned_run.h"
#include "results/index_sections.h"
#include "results/model.h"
#include "results/run_info.h"
#include "run/case_runner.h"
#include "run/replay.h"
#include "run/subprocess.h"
#include "util/fs.h"

namespace jitbench {
struct RunIndex;

// The catalog (built-ins, --workload-path and the suite's workload files with
// their records) is built here and each case planned carries its records.
// `inputs`: the copies a resumed or replicated run reads its inputs from.
// Throws UserError for a selection that plans nothing or a bad --shard/--costs.
PlannedRun make_planned_run(const RunOptions& opts, const InputCopies& inputs = {});

// A recorded run's command made runnable here (for --resume and replicate):
// relative paths anchored at the directory it was started from, the suite
// and workload files read from the copies in its out dir (checked against
// their sha256). Throws UserError when a copy is missing or altered.
// Returns the copies to read the inputs from (InputCopies: the plan takes them).
InputCopies use_recorded_inputs(const RunIndex& index, const std::filesystem::path& dir, RunOptions& o);
// The index's cwd and inputs sections as a recorded run has them, for a run
// that goes on from it (a resumption, a merge of its shards).
struct RunHeader;
void keep_recorded_inputs(const RunIndex& index, RunHeader& h);
// --affinity CPUS checked against the CPUs online here and those jitbench may
// run on: a UserError naming the first one that is not (none given: nothing).
void require_affinity(const std::vector<int>& cpus);

// `catalog` with the record of each of its user workloads, as the worker
// prints it. A file it cannot read keeps a placeholder record (one line on
// stderr; its cases then fail with the worker's reason); throws UserError
// only when Python cannot be started.
Catalog load_user_workload_records(const std::string& python, Catalog catalog);

// --env and --env-var over the suite's [[environments]]: the command line's
// environments replace the suite's; variables apply to whichever are used.
std::vector<EnvironmentSpec> selected_environments(const Suite& suite, const RunOptions& o);
// What building the run's environments needs: the cache root (a UserError
// where there is none), the --find-links made absolute (an environment's hash
// and record hold no relative path), --no-index; logs below log_root.
EnvironmentRequest environment_request(const RunOptions& o, const std::filesystem::path& log_root);
// The run's inputs, copied into the out dir and listed in the index: --resume
// measures from these copies, never from whatever the original paths hold later.
std::vector<FileWrite> input_copies(const RunOptions& o, const PlannedRun& p, std::vector<InputCopy>& listed);

WorkerSetup worker_setup(const RunOptions& o, const Suite& suite);
// Where Slurm runs this (a job array task, say): its ids; {} outside Slurm.
SlurmIds slurm_ids();
// The out dir's first index, written before any process is started (start.cc).
RunHeader start_run(const RunOptions& o, const PlannedRun& p, const WorkerSetup& setup, const OutDir& out,
                    const std::vector<std::string>& command);
// How the manifest's host facts are read for the workers of `env` ("" for the run's own interpreter).
HostReadOptions manifest_read(const WorkerSetup& setup, const std::string& env);
// Probed (nullopt), interrupted (128 + signal) or a failed probe (UserError); the index says which.
std::optional<int> finish_starting(RunHeader& h, const RunOptions& o, const PlannedRun& p, const WorkerSetup& setup,
                                   const OutDir& out, ProcessLauncher& launcher);

// Every environment of the plan built (or found in the cache), held and probed.
void prepare_environments(const PlannedRun& p, const RunOptions& o, WorkerSetup& setup, RunHeader& h,
                          const OutDir& out, ProcessLauncher& launcher);
// A signal while the environments were built: the index says so, 128 + signal.
std::optional<int> stopped_preparing(const OutDir& out, const RunHeader& h, const std::vector<Case>& plan = {},
                                     const std::map<std::string, CaseResult>& kept = {});

// The run's last line on stdout; 2 when a case failed, else 0.
int final_line(const std::vector<CaseResult>& results, const OutDir& out);
// Runs `plan` into `out`, writing every artifact after each case (case_loop.cc).
int run_cases(const OutDir& out, RunHeader h, CaseRunner& runner, const std::vector<Case>& plan,
              std::map<std::string, CaseResult> keep, bool quiet, bool interleave, std::vector<double> costs);

// A development aid: record every worker process for offline replay
// (src/run/replay.h; the golden test's fixtures are made this way).
struct Launchers {
  PosixLauncher posix;
  std::optional<RecordingLauncher> recorder;
  explicit Launchers(const std::vector<int>& cpus) : posix(cpus) {
    if (const char* rec = std::getenv("JITBENCH_RECORD_WORKERS"); rec && *rec) recorder.emplace(posix, rec);
  }
  ProcessLauncher& get() { return recorder ? static_cast<ProcessLauncher&>(*recorder) : posix; }
};

void announce(bool quiet, std::size_t n, const WorkerSetup& setup, const OutDir& out, const std::string& what);

// The directory the sides of `noise` and `compare --remeasure` go into: new or empty.
void make_empty_dir(const std::filesystem::path& dir, const char* flag, const char* what);
// A signal while noise's or --remeasure's sides were started or measured.
struct SidesInterrupted {};

// One side of `jitbench noise`: a run of its own (D/a or D/b), started and probed.
struct NoiseSide {
  OutDir out;
  RunHeader h;
  WorkerSetup setup;
  std::vector<CaseResult> results;
};
NoiseSide start_noise_side(const RunOptions& o, const PlannedRun& p, const std::filesystem::path& dir,
                           const std::vector<std::string>& command, ProcessLauncher& launcher);
// Pair by pair, the two sides' cold processes round-robin; false when interrupted.
bool measure_sides(const std::vector<std::pair<Case, Case>>& pairs, bool interleave, bool quiet, NoiseSide& a,
                   NoiseSide& b, const std::vector<std::string>& runs, ProcessLauncher& launcher);
}  // namespace jitbench
