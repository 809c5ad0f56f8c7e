#pragma once
// Asks the Python worker what it has: interpreter, platform, package versions
// and, per backend, whether it can run here and why not.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "run/subprocess.h"

namespace jitbench {

struct ProbeRequest {
  std::string python;
  std::filesystem::path worker_dir;
  std::filesystem::path log_path;
  bool check_devices = false;  // also initialise GPU backends (slower)
  double timeout_s = 120;
  std::filesystem::path log_root{};  // the out dir the log lies in (no link below it is followed)
};

// A worker-package helper (`python -m jitbench_worker ...`) that answers on the
// result descriptor, with PYTHONPATH at the worker package and its log under log_root.
SpawnSpec worker_module_spawn(std::vector<std::string> argv, const std::filesystem::path& worker_dir,
                              const std::filesystem::path& log_path, const std::filesystem::path& log_root,
                              double timeout_s);

// The probe message body, or a one-line error.
std::variant<nlohmann::json, std::string> probe_worker(ProcessLauncher& launcher, const ProbeRequest& req);

}  // namespace jitbench
