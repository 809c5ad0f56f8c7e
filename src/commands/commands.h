#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/options.h"
#include "config/catalog.h"
#include "config/suite.h"
#include "plan/plan.h"

namespace jitbench {
// Exit codes: 0 every case ok or warn; 1 compare found a regression; 2 a case
// failed, or a usage error; 3 an internal error; 4 the out dir refused a write
// (full, read-only) and the run stopped, what it recorded still valid; 5 merge
// wrote an incomplete run (shards or cases missing); 6 validate found a valid
// run that is incomplete (stopped, or merged without some shards); 128+N
// interrupted by signal N. README.md has the same table.
inline constexpr int kExitWriteFailed = 4;
inline constexpr int kExitIncomplete = 6;

int cmd_run(const RunOptions& opts, int argc, char** argv);
// A recorded run's command made runnable here (for --resume and replicate):
// relative paths anchored at the directory it was started from, the suite
// and workload files read from the copies in its out dir (checked against
// their sha256). Throws UserError when a copy is missing or altered.
struct RunIndex;
void use_recorded_inputs(const RunIndex& index, const std::filesystem::path& dir, RunOptions& o);
int cmd_plan(const PlanOptions& opts);
// Exit code of a merge that wrote the merged run but lacks shards or cases.
inline constexpr int kExitIncompleteMerge = 5;
int cmd_merge(const MergeOptions& opts, int argc, char** argv);
int cmd_bisect(const BisectOptions& opts);

// The cases a run's options select, in order, and the shard it measures.
struct PlannedRun {
  Suite suite;
  std::vector<Case> full;          // the whole plan
  std::vector<Case> cases;         // what this run measures: the shard's, or the whole plan
  std::vector<double> costs;       // expected seconds per case of `full`
  std::vector<int> shard_of;       // 0-based shard per case of `full` (all 0 unsharded)
  nlohmann::json shard = nullptr;  // the index's "shard" section; null unsharded
  std::vector<EnvironmentSpec> environments;  // the environments every case runs in (none: the run's own)
};
// Throws UserError for a selection that plans nothing or a bad --shard/--costs.
PlannedRun make_planned_run(const RunOptions& opts);
int cmd_list(const ListOptions& opts);
int cmd_validate(const ValidateOptions& opts);
int cmd_report(const ReportOptions& opts);
// DIR/report/report.html and report.md of a valid run (cmd_report without its checks and output).
void write_report(const std::string& dir, const std::string& python);
// Throws UserError unless dir is an out dir `jitbench validate` accepts; label
// ("BASE", "NEW" or "") starts the message.
void require_valid_run(const std::string& dir, const std::string& label);
// The same for --resume, which accepts the unlisted logs of cases the index
// does not record (the case a killed run was measuring).
void require_resumable_run(const std::string& dir, const std::vector<std::string>& recorded_cases);
int cmd_compare(const CompareOptions& opts);
// Exit codes of the publishing commands (README's table).
inline constexpr int kExitSignature = 7;        // verify: no signature, a bad one, or no allowed signer's
inline constexpr int kExitReplicaDiffers = 8;   // replicate: every gate held; timing metrics differ
inline constexpr int kExitReplicaFailed = 9;    // replicate: a correctness gate failed
int cmd_publish(const PublishOptions& opts);
int cmd_replicate(const ReplicateOptions& opts);
int cmd_sign(const SignOptions& opts);
int cmd_verify(const VerifyOptions& opts);

// Asks the worker for the record of every user workload registered so far.
// A file it cannot read keeps a placeholder record (one line on stderr; its
// cases then fail with the worker's reason); throws UserError only when
// Python cannot be started.
void load_user_workload_records(const std::string& python);
// --python, else $JITBENCH_PYTHON, else the project's .venv, else python3.
std::string resolve_python(const std::string& flag);
// $JITBENCH_WORKER_DIR, else <source>/worker.
std::filesystem::path resolve_worker_dir();
// Runs the figure script (matplotlib) on data; returns file stem -> SVG for
// every figure it drew. Its output goes to log_path (inside log_root).
// Throws UserError when Python cannot start or the script fails.
std::map<std::string, std::string> draw_figures(const std::string& python, const nlohmann::json& data,
                                                const std::filesystem::path& log_root,
                                                const std::filesystem::path& log_path);
// The report's figure script (jitbench_figures): $JITBENCH_FIGURES_DIR, else <source>/src/report/figures.
std::filesystem::path resolve_figures_dir();
// build/jitbench-native-worker beside this executable ($JITBENCH_NATIVE_WORKER overrides).
std::filesystem::path resolve_native_worker(WorkerKind kind = WorkerKind::Native);
// The CBLAS library NumPy uses (its wheel's bundled OpenBLAS) for the native
// matmul; $JITBENCH_NATIVE_BLAS overrides; "" when not found.
std::string resolve_native_blas(const std::string& python);
}  // namespace jitbench
