#pragma once
// What the commands and the engines below them (bisection/, publishing/,
// replication/) share: where the workers, the interpreter and the figure
// script are, the checks that a directory is a run jitbench accepts, and the
// report's files. Nothing here parses options or decides an exit code.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/options.h"
#include "config/catalog.h"

namespace jitbench {
// Exit codes of the publishing commands (README's table; the others are in commands.h).
inline constexpr int kExitWriteFailed = 4;
// A path jitbench would write, remove or read through holds a symbolic link
// (or a component that is not a directory): refused, nothing done through it.
inline constexpr int kExitLinkRefused = 13;
inline constexpr int kExitSignature = 7;        // verify: no signature, a bad one, or no allowed signer's
inline constexpr int kExitReplicaDiffers = 8;   // replicate: every gate held; timing metrics differ
inline constexpr int kExitReplicaFailed = 9;    // replicate: a correctness gate failed
inline constexpr int kExitBelowNoiseFloor = 11; // compare, bisect --strict: a threshold below the noise floor
inline constexpr int kExitReplicaInconclusive = 12;  // replicate: every gate held; no timing metric could be tested

// --python, else $JITBENCH_PYTHON, else the project's .venv, else python3.
std::string resolve_python(const std::string& flag);
// $JITBENCH_WORKER_DIR, else <source>/worker.
std::filesystem::path resolve_worker_dir();
// The report's figure script (jitbench_figures): $JITBENCH_FIGURES_DIR, else <source>/src/report/figures.
std::filesystem::path resolve_figures_dir();
// build/jitbench-native-worker beside this executable ($JITBENCH_NATIVE_WORKER overrides).
std::filesystem::path resolve_native_worker(WorkerKind kind = WorkerKind::Native);
// libjitbench-count (native/count.cc), which counting workers load: $JITBENCH_COUNT_LIB, else the
// installation's jitbench/_data/lib, else beside this executable (build/).
std::filesystem::path resolve_count_library();
// The CBLAS library NumPy uses (its wheel's bundled OpenBLAS) for the native
// matmul; $JITBENCH_NATIVE_BLAS overrides; "" when not found.
std::string resolve_native_blas(const std::string& python);

// Runs the figure script (matplotlib figures, Jinja2 pages) on data; returns
// every file it wrote, by path relative to its output directory ("ttfr.svg",
// "report.html", "site/index.html"). Its output goes to log_path (inside log_root).
// Throws UserError when Python cannot start or the script fails.
std::map<std::string, std::string> draw_figures(const std::string& python, const nlohmann::json& data,
                                                const std::filesystem::path& log_root,
                                                const std::filesystem::path& log_path);
// DIR/report/report.html and report.md of a valid run (cmd_report without its checks and output).
void write_report(const std::string& dir, const std::string& python);

// Throws UserError unless dir is an out dir `jitbench validate` accepts; label
// ("BASE", "NEW" or "") starts the message.
void require_valid_run(const std::string& dir, const std::string& label);
// The same for --resume, which accepts what a run killed outright leaves
// (artifacts/out_dir.h, remade_on_resume): the files of cases the index does
// not record, the documents derived from every case, and the rewritten files
// of failed cases. Returned for the caller, which knows the plan: the failed
// cases rewritten (it refuses any of them it would keep) and the files of
// unrecorded cases (it refuses one whose case is not planned and removes the
// rest before measuring: a file it did not write itself is never listed).
struct CaseLeftover {
  std::string id, path, error;  // error: validate's line for it
};
struct Resumable {
  std::vector<std::string> rewritten_cases;
  std::vector<CaseLeftover> leftovers;
};
Resumable require_resumable_run(const std::string& dir, const std::vector<std::string>& recorded_cases,
                                const std::vector<std::string>& failed_cases);
// The line --resume refuses an out dir with, naming the first thing wrong in it.
std::string not_resumable(const std::string& dir, const std::string& error);

// What a command writes (`out`, a directory or a file, named by `out_flag`)
// must lie outside every directory it reads (each named, e.g. {"BASE", dir}):
// written there it would add a file that directory's index does not list (or
// change one it does), and the input would stop validating. Throws UserError
// naming both; links are resolved first, so a link to the inside is inside.
struct ReadDir {
  std::string name, dir;
};
void require_outside_inputs(const std::string& out, const std::string& out_flag, const std::vector<ReadDir>& inputs);

// The working directory as UTF-8, or a UserError saying it is not: a run
// records it (index.json cwd, which --resume resolves the command's relative
// paths against) and the paths made from it, as JSON text.
void require_utf8_cwd();

struct NoiseFloor;
// DIR/noise.json of a `jitbench noise` run (--noise-floor DIR). Throws
// UserError, one line naming the fix, when DIR or its noise.json is missing or
// not a noise floor jitbench wrote.
NoiseFloor load_noise_floor(const std::string& dir, const char* flag);

// GitHub Actions' job summary: where the environment variable
// GITHUB_STEP_SUMMARY names a file (set and not empty), `markdown` is appended
// to it, never truncating what earlier steps wrote. A file that cannot be
// written is a warning on stderr from `who` ("jitbench compare"), never a
// failure: the verdict's exit code stands.
void append_step_summary(const std::string& markdown, const char* who);
}  // namespace jitbench
