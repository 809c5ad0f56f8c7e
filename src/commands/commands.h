#pragma once
#include <filesystem>
#include <string>

#include "cli/options.h"
#include "config/catalog.h"

namespace jitbench {
// Exit codes: 0 every case ok or warn; 1 compare found a regression; 2 a case
// failed, or a usage error; 3 an internal error; 4 the out dir refused a write
// (full, read-only) and the run stopped, what it recorded still valid;
// 128+N interrupted by signal N.
inline constexpr int kExitWriteFailed = 4;

int cmd_run(const RunOptions& opts, int argc, char** argv);
int cmd_list(const ListOptions& opts);
int cmd_validate(const ValidateOptions& opts);
int cmd_report(const ReportOptions& opts);
// Throws UserError unless dir is an out dir `jitbench validate` accepts; label
// ("BASE", "NEW" or "") starts the message.
void require_valid_run(const std::string& dir, const std::string& label);
int cmd_compare(const CompareOptions& opts);

// --python, else $JITBENCH_PYTHON, else the project's .venv, else python3.
std::string resolve_python(const std::string& flag);
// $JITBENCH_WORKER_DIR, else <source>/worker.
std::filesystem::path resolve_worker_dir();
// The report's figure script (jitbench_figures): $JITBENCH_FIGURES_DIR, else <source>/src/report/figures.
std::filesystem::path resolve_figures_dir();
// build/jitbench-native-worker beside this executable ($JITBENCH_NATIVE_WORKER overrides).
std::filesystem::path resolve_native_worker(WorkerKind kind = WorkerKind::Native);
// The CBLAS library NumPy uses (its wheel's bundled OpenBLAS) for the native
// matmul; $JITBENCH_NATIVE_BLAS overrides; "" when not found.
std::string resolve_native_blas(const std::string& python);
}  // namespace jitbench
