#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "commands/common/common.h"
#include "config/catalog.h"
#include "config/input_copies.h"
#include "config/suite.h"
#include "plan/plan.h"
#include "results/index_sections.h"

namespace jitbench {
struct RunIndex;
// Exit codes: 0 every case ok or warn; 1 compare found a regression; 2 a case
// failed, or a usage error; 3 an internal error; 4 the out dir refused a write
// (full, read-only) and the run stopped, what it recorded still valid; 5 merge
// wrote an incomplete run (shards or cases missing); 6 validate found a valid
// run that is incomplete (stopped, or merged without some shards); 128+N
// interrupted by signal N; 10 `doctor --strict` found a warn. README.md has
// the same table.
inline constexpr int kExitWriteFailed = 4;
// A path jitbench would write, remove or read through holds a symbolic link
// (or a component that is not a directory): refused, nothing done through it.
inline constexpr int kExitLinkRefused = 13;
inline constexpr int kExitIncomplete = 6;
inline constexpr int kExitDoctorWarn = 10;

// `command`: the command line the run's index records (argv[0] included); a
// replica's is the original's with its own out dir (replication.h).
// `inputs`: a replicated run's copies of the original's inputs.
int cmd_run(const RunOptions& opts, const std::vector<std::string>& command, const InputCopies& inputs = {});
// --resume DIR: the command and environment from DIR's index, the cases it
// measured kept, those missing or interrupted measured now.
int cmd_resume(const ResumeOptions& opts);
// `jitbench measure TARGET`: the worker writes a workload file that measures
// TARGET (worker/jitbench_worker/target.py), which is then run as
// `run --workload-path` alone would run it; the index records the command as typed.
int cmd_measure(const MeasureOptions& opts, const std::vector<std::string>& command);
// A recorded `measure` command names no workload file: its run's is the
// workload input its index lists. Adds it to `o` (a `run` command: nothing).
void add_measured_workload(const RunIndex& index, RunOptions& o);
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
int cmd_plan(const PlanOptions& opts);
// Exit code of a merge that wrote the merged run but lacks shards or cases.
inline constexpr int kExitIncompleteMerge = 5;
int cmd_merge(const MergeOptions& opts, int argc, char** argv);
int cmd_bisect(const BisectOptions& opts);
// `jitbench noise`: the selection measured twice, interleaved, into D/a and
// D/b, and D/noise.json (the smallest detectable regression per case and metric).
int cmd_noise(const NoiseOptions& opts, const std::vector<std::string>& command);
// compare --remeasure DIR: the cases BASE and NEW both planned, measured again
// here from their recorded commands, side by side (cold processes
// interleaved), into DIR/base and DIR/new; returns those two out dirs, or
// none when a signal stopped it (said on stderr: it cannot be resumed; the
// caller exits 128 + the signal, as an interrupted run does). `only`: BASE's
// case ids to measure (empty: every case both planned).
std::optional<std::pair<std::string, std::string>> remeasure_side_by_side(const std::string& base, const std::string& next,
                                                           const std::string& out_dir, bool quiet,
                                                           const std::vector<std::string>& only = {});

// The cases a run's options select, in order, and the shard it measures.
struct PlannedRun {
  Suite suite;
  std::vector<Case> full;          // the whole plan
  std::vector<Case> cases;         // what this run measures: the shard's, or the whole plan
  std::vector<double> costs;       // expected seconds per case of `full`
  std::vector<int> shard_of;       // 0-based shard per case of `full` (all 0 unsharded)
  std::optional<ShardSection> shard;  // the index's "shard" section; none unsharded
  std::vector<EnvironmentSpec> environments;  // the environments every case runs in (none: the run's own)
  InputCopies inputs;  // where a resumed or replicated run reads its inputs from (none: the paths given)
};
// The catalog (built-ins, --workload-path and the suite's workload files with
// their records) is built here and each case planned carries its records.
// `inputs`: the copies a resumed or replicated run reads its inputs from.
// Throws UserError for a selection that plans nothing or a bad --shard/--costs.
PlannedRun make_planned_run(const RunOptions& opts, const InputCopies& inputs = {});
int cmd_list(const ListOptions& opts);
int cmd_validate(const ValidateOptions& opts);
int cmd_report(const ReportOptions& opts);
int cmd_compare(const CompareOptions& opts);
int cmd_publish(const PublishOptions& opts);
int cmd_replicate(const ReplicateOptions& opts);
int cmd_sign(const SignOptions& opts);
int cmd_verify(const VerifyOptions& opts);
// `jitbench doctor`: 0, or kExitDoctorWarn with --strict when a check warns.
int cmd_doctor(const DoctorOptions& opts);
// `jitbench envs list|rm|prune`: 0, or 2 when rm is refused (unknown, not
// jitbench's, in use) or the cache cannot be read.
int cmd_envs(const EnvsOptions& opts);

// `catalog` with the record of each of its user workloads, as the worker
// prints it. A file it cannot read keeps a placeholder record (one line on
// stderr; its cases then fail with the worker's reason); throws UserError
// only when Python cannot be started.
Catalog load_user_workload_records(const std::string& python, Catalog catalog);
}  // namespace jitbench
