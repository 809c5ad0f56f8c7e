#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "commands/common/common.h"
#include "commands/run/run.h"
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
// TARGET (worker/jitbench_worker/harness/target.py), which is then run as
// `run --workload-path` alone would run it; the index records the command as typed.
int cmd_measure(const MeasureOptions& opts, const std::vector<std::string>& command);
// A recorded `measure` command names no workload file: its run's is the
// workload input its index lists. Adds it to `o` (a `run` command, or an
// index whose typed options list it already: nothing).
void add_measured_workload(const RunIndex& index, RunOptions& o);
// The options a recorded run is measured again with (--resume, compare
// --remeasure): the index's typed options (v5); an index before them, its
// recorded command parsed (and a measure run's workload added).
RunOptions recorded_run_options(const RunIndex& index);
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

}  // namespace jitbench
