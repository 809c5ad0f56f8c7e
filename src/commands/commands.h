#pragma once
#include <filesystem>
#include <string>

#include "cli/options.h"

namespace jitbench {
int cmd_run(const RunOptions& opts, int argc, char** argv);
int cmd_list(const ListOptions& opts);
int cmd_validate(const ValidateOptions& opts);

// --python, else $JITBENCH_PYTHON, else the project's .venv, else python3.
std::string resolve_python(const std::string& flag);
// $JITBENCH_WORKER_DIR, else <source>/worker.
std::filesystem::path resolve_worker_dir();
}  // namespace jitbench
