#pragma once
// The names jitbench accepts. Backends and workloads come from the Python
// worker's registries (worker/jitbench_worker/{backends,workloads}/__init__.py),
// printed at build time and embedded here: one catalog, nothing to keep in step.
// Cache policies and precisions are names of config/names.h.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/names.h"

namespace jitbench {

enum class WorkerKind { Python, Native, NativeCuda };

struct BackendInfo {
  std::string name;
  std::string package;   // the import that must succeed (missing_dependency: <package>)
  bool wants_gpu = false;
  std::string summary;
  WorkerKind worker = WorkerKind::Python;
  bool jit = false;             // compiles at run time: gets a break-even against its baseline
  std::string baseline;         // the same framework without its JIT, on the same device ("" -> NumPy)
  bool aot_crosscheck = false;  // its phases are cross-checked by an ahead-of-time compile
  // Its framework writes a compile cache at default settings (torch.compile,
  // Triton): in a cold run, files written to the case's cache are expected.
  bool writes_cache_by_default = false;
};

struct WorkloadInfo {
  std::string name;
  std::string summary;
  // Variants measured side by side share a pair name (e.g. "sgd_step").
  std::string pair = "";
  // Set for a user workload: the Python file that defines it.
  std::string path = "";
};

struct NameInfo {
  std::string name;
  std::string summary;
};

const std::vector<BackendInfo>& backends();
const BackendInfo* find_backend(std::string_view name);
// Built-in workloads followed by the user workloads registered so far.
const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(std::string_view name);
// A user workload from a Python file (docs/user-workloads.md): its name is the
// file's stem. Returns a one-line error when the file is missing, is not a .py
// file, has a stem that is not an identifier, or shadows a built-in workload.
// Registering the same file twice is allowed.
std::optional<std::string> register_user_workload(const std::string& path);
const std::vector<NameInfo>& cache_policies();
const std::vector<NameInfo>& precisions();
bool is_backend(std::string_view name);
bool is_workload(std::string_view name);
bool is_cache_policy(std::string_view name);
bool is_precision(std::string_view name);
// "a, b, c" for error messages.
std::string backend_names();
std::string workload_names();
std::string cache_policy_names();
std::string precision_names();

// Case dtype as written in case ids ("f32") and in configs ("float32").
bool is_dtype(std::string_view short_name);
std::string dtype_long(std::string_view short_name);

}  // namespace jitbench
