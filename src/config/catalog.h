#pragma once
// The names jitbench accepts. Backends and workloads come from the Python
// worker's registries (worker/jitbench_worker/{backends,workloads}/__init__.py),
// printed at build time and embedded here: one catalog, nothing to keep in step.
// Cache policies and precisions are names of config/names.h, described there.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
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
  // Its compiler reads the OpenMP thread count (what it compiles depends on
  // it): counting processes leave its thread pools as timed (run/counting.h).
  bool compile_reads_threads = false;
  std::string device = "cpu";     // cpu | gpu: the device it is meant for
  bool default_baseline = false;  // the baseline of a JIT whose own has no ok case (NumPy)
  bool floor = false;             // the no-JIT floor of its device
  double startup_s = 2.0;         // a worker process's start-up (the shard planner's model)
  double cost_factor = 1.0;       // its calls' work relative to a compiled backend
  std::string framework = "";     // the key of a workload file's IMPLEMENTATIONS it runs ("" for none)
};

// How a workload's throughput is counted: check()'s info[field] * scale, in unit.
struct WorkCount {
  std::string field;
  double scale = 1.0;
  std::string unit;
};

// A workload's record (worker/jitbench_worker/workloads/__init__.py, Workload).
// `jitbench measure`'s workload (its CATALOG's measured): the user's function
// as they named it, where it is from ("mlp.py", "pkg.model"), and what each
// backend runs ("sgd_step with jax.jit"). The workload's id may differ (a name
// a built-in workload has gets "_fn"); tables show these instead.
struct MeasuredFunction {
  std::string function, source;
  std::map<std::string, std::string> labels;  // backend -> what it runs
  bool operator==(const MeasuredFunction&) const = default;
};

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
  // A user workload file's own plan (`--workload-path` alone, docs/user-workloads.md): the keys of its
  // IMPLEMENTATIONS, and CATALOG's sizes, dtypes ("f32", "f64") and backends; empty where not given.
  std::vector<std::string> frameworks = {};
  std::vector<long> sizes = {};
  std::vector<std::string> dtypes = {};
  std::vector<std::string> backends = {};
  std::optional<MeasuredFunction> measured = std::nullopt;  // a `jitbench measure` workload
};

// A record as the worker prints it (catalog.json, `catalog --workload-file`,
// a result's workload_record). Throws nlohmann::json::exception when malformed.
WorkloadInfo workload_from_json(const nlohmann::json& j);
// The record of a case's workload: the one the plan resolved (`carried`) when
// it was loaded (built-in, or a user file read at plan time), else the one its
// worker reported (a user workload read back by `report`), else the carried
// placeholder; none when neither has one. plan/plan.h applies it to a Case.
std::optional<WorkloadInfo> workload_record(const WorkloadInfo* carried, const nlohmann::json& reported);

// The backends and workloads one command knows: the built-in ones (the
// embedded catalog, parsed once, never changed) plus the user workloads it was
// given. A value: adding a workload or a record makes a new catalog, so two
// catalogs never see each other's workloads. Its records are immutable and
// shared with the cases planned from it (plan/plan.h), which outlive it.
class Catalog {
 public:
  template <typename T>
  using Records = std::vector<std::shared_ptr<const T>>;
  // The embedded catalog: backends and built-in workloads.
  static const Catalog& builtin();

  const Records<BackendInfo>& backends() const { return backends_; }
  // Built-in workloads followed by the user workloads added.
  const Records<WorkloadInfo>& workloads() const { return workloads_; }
  std::shared_ptr<const BackendInfo> find_backend(std::string_view name) const;
  std::shared_ptr<const WorkloadInfo> find_workload(std::string_view name) const;
  bool is_workload(std::string_view name) const { return find_workload(name) != nullptr; }
  // The floor backend of a device ("cpu", "gpu"); nullptr when the catalog has none.
  const BackendInfo* floor_of(const std::string& device) const;
  // The backend a JIT is weighed against when its own baseline has no ok case.
  const BackendInfo* default_baseline() const;
  // "a, b, c" for error messages.
  std::string backend_names() const;
  std::string workload_names() const;

  // This catalog plus a user workload from a Python file (docs/user-workloads.md),
  // `file` being the file to read (a resumed run's copy): its name is the
  // file's stem, its record a placeholder until with_record gives it one.
  // A one-line error when the file is missing, is not a .py file, has a stem
  // that is not an identifier, or shadows a built-in workload. Adding the same
  // file twice is allowed (the catalog comes back unchanged).
  std::variant<Catalog, std::string> with_user_workload(const std::string& file) const;
  // This catalog with a user workload's record replaced by the one its worker
  // printed (commands/user_workloads.cc asks it), keeping its name and path.
  Catalog with_record(WorkloadInfo record) const;

 private:
  Catalog() = default;
  Records<BackendInfo> backends_;
  Records<WorkloadInfo> workloads_;
};

// Backends are all built in: the built-in catalog's (the CLI checks --backends against them).
bool is_backend(std::string_view name);
std::string backend_names();

// Case dtype as written in case ids ("f32") and in configs ("float32").
bool is_dtype(std::string_view short_name);
std::string dtype_long(std::string_view short_name);

}  // namespace jitbench
