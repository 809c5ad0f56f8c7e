#pragma once
// The native workers' workloads: the same algorithms as the Python workloads
// (worker/jitbench_worker/workloads/), compiled ahead of time. Each one builds
// its inputs, runs, and checks the last output against an independent float64
// (or exact integer) reference after the clock has stopped. main.cc is shared
// by both native executables; each links its own make_workload and target():
// cpu_workloads.cc (backend `native`) and cuda_workloads.cc (`native_cuda`).
#include <nlohmann/json.hpp>

#include "hash.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace jitbench::native {

// Thrown when a workload cannot run here; becomes a skip message
// ("missing_dependency: numpy", "unsupported: ...").
struct Skip {
  std::string reason;
  std::string detail;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Everything that is not the call itself: load libraries (import_s), inputs (setup_s).
  // May throw Skip (missing_dependency, gpu_unavailable).
  virtual void load() {}
  virtual void setup(std::int64_t n, bool f64, std::uint64_t seed) = 0;
  // One call, its output written to `slot` (0 or 1): the first call's output
  // stays in slot 0 while later calls write slot 1, so both are verified with
  // nothing copied between calls.
  virtual void call(int slot) = 0;
  // The output in `slot` against the reference:
  // {"ok", "metric", "error", "tolerance", "reference", "message"?}
  virtual nlohmann::json verify(int slot) = 0;
  virtual nlohmann::json info() { return nlohmann::json::object(); }
  virtual nlohmann::json library() { return nlohmann::json::object(); }
  // {"matmul": effective format, "settings", "rule"} for the requested precision.
  virtual nlohmann::json precision(bool f64, const std::string& requested) {
    return {{"requested", requested}, {"matmul", f64 ? "fp64" : "ieee_fp32"}, {"settings", nlohmann::json::object()},
            {"rule", "computed on the CPU in IEEE arithmetic"}};
  }
  // Peak device memory of the process, where the device keeps a count (null otherwise).
  virtual nlohmann::json device_peak_bytes() { return nullptr; }
  // Read right after the last timed call: true if the device still had work
  // queued (the timings would not cover it), null where nothing is asynchronous.
  virtual nlohmann::json pending_after_last_call() { return nullptr; }
  // The device the calls ran on (the target's, unless the workload knows more).
  virtual nlohmann::json device();
};

// nullptr for a workload this worker does not implement; `precision` is the
// suite's request ("default" | "highest").
std::unique_ptr<Workload> make_workload(const std::string& name, const std::string& precision);

// What the executable measures on: its backend name, its device, how a call is
// synchronised, how it was compiled, and the environment variables it records.
struct Target {
  std::string backend;
  nlohmann::json device;
  nlohmann::json sync;
  nlohmann::json build;
  std::vector<const char*> env_keys;
};
const Target& target();

// The machine's own ceilings on the target's device, by short micro-benchmarks
// (`<worker> ceilings --fd N`, docs/protocol.md): peak GEMM GFLOP/s through
// the BLAS / cuBLAS at a large size and copy bandwidth. Throws Skip when the
// device or its library is not there.
nlohmann::json measure_ceilings();

}  // namespace jitbench::native
