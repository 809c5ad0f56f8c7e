#pragma once
// The names jitbench accepts. Backends and workloads come from the Python
// worker's registries (worker/jitbench_worker/{backends,workloads}/__init__.py),
// printed at build time and embedded here: one catalog, nothing to keep in step.
// Cache policies and precisions are names of config/names.h.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config/names.h"

namespace jitbench {

enum class WorkerKind { Python, Native, NativeCuda };

// A backend's record (worker/jitbench_worker/backends/__init__.py, Backend).
struct BackendInfo {
  std::string name;
  std::string package;   // the import that must succeed (missing_dependency: <package>)
  bool wants_gpu = false;
  std::string summary;
  WorkerKind worker = WorkerKind::Python;
  bool jit = false;             // compiles at run time: gets a break-even against its baseline
  std::string baseline;         // the same framework without its JIT, on the same device ("" -> the default)
  bool aot_crosscheck = false;  // its phases are cross-checked by an ahead-of-time compile
  // Its framework writes a compile cache at default settings (torch.compile,
  // Triton): in a cold run, files written to the case's cache are expected.
  bool writes_cache_by_default = false;
  std::string device = "cpu";     // cpu | gpu: the device it is meant for
  bool default_baseline = false;  // the baseline of a JIT whose own has no ok case (NumPy)
  bool floor = false;             // the no-JIT floor of its device
  double startup_s = 2.0;         // a worker process's start-up (the shard planner's model)
  double cost_factor = 1.0;       // its calls' work relative to a compiled backend
};

// How a workload's throughput is counted: check()'s info[field] * scale, in unit.
struct WorkCount {
  std::string field;
  double scale = 1.0;
  std::string unit;
};

// A workload's record (worker/jitbench_worker/workloads/__init__.py, Workload).
struct WorkloadInfo {
  std::string name;
  std::string summary;
  // Variants measured side by side share a pair name (e.g. "sgd_step").
  std::string pair = "";
  // Set for a user workload: the Python file that defines it.
  std::string path = "";
  std::optional<WorkCount> work;  // none: no throughput row
  std::string ceiling;            // the device ceiling that applies ("gemm"), "" for none
  std::string ceiling_note;       // why none applies
  std::string accuracy;           // the info field holding an absolute error, "" for none
  double cost_coefficient = 1e-8, cost_exponent = 1.0;  // one call on a compiled backend: coef * n^exp s
  std::string loop_step;          // a short loop: its step's name ("" for none)
  long loop_steps = 0;            // and the steps one call runs
  bool record_loaded = true;      // false for a user workload until its worker has described it
};

// A record as the worker prints it (catalog.json, `catalog --workload-file`,
// a result's workload_record). Throws nlohmann::json::exception when malformed.
WorkloadInfo workload_from_json(const nlohmann::json& j);
// The record of a case's workload: the catalog's when it knows the workload
// (built-in, or a user file read at plan time), else the one its worker
// reported (a user workload read back by `report`); none when neither has one.
std::optional<WorkloadInfo> workload_record(const std::string& name, const nlohmann::json& reported);

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
// Replaces a registered user workload's record with the one its worker
// printed (commands/user_workloads.cc asks it), keeping its name and path.
void set_user_workload_record(WorkloadInfo record);
// The floor backend of a device ("cpu", "gpu"); nullptr when the catalog has none.
const BackendInfo* floor_of(const std::string& device);
// The backend a JIT is weighed against when its own baseline has no ok case.
const BackendInfo* default_baseline();
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
