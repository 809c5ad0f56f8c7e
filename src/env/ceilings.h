#pragma once
// The machine's own ceilings (peak GEMM GFLOP/s, copy bandwidth), measured
// once per run by the native workers (`<worker> ceilings --fd N`) and stored
// in the environment manifest under "ceilings": {"cpu": {...}, "gpu": {...}},
// each {"measured": true, ...figures} or {"measured": false, "reason"}.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "run/subprocess.h"

namespace jitbench {

struct CeilingsRequest {
  std::filesystem::path worker;             // jitbench-native-worker or jitbench-native-cuda-worker
  std::map<std::string, std::string> env;   // e.g. JITBENCH_NATIVE_BLAS
  std::filesystem::path log_path, log_root;
  double timeout_s = 120;
};

// Never throws: what went wrong becomes {"measured": false, "reason"}.
nlohmann::json measure_ceilings(ProcessLauncher& launcher, const CeilingsRequest& req);

// {"measured": false, "reason"} for a device whose ceilings were not measured.
nlohmann::json ceilings_not_measured(const std::string& reason);

}  // namespace jitbench
