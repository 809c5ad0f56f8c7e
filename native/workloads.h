#pragma once
// The native worker's workloads: the same algorithms as the Python workloads
// (worker/jitbench_worker/workloads/), compiled ahead of time. Each one builds
// its inputs, runs, and checks the last output against an independent float64
// (or exact integer) reference after the clock has stopped.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

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
};

// nullptr for a workload the native worker does not implement.
std::unique_ptr<Workload> make_workload(const std::string& name);

// The lowbias32 hash the Python workloads use (workloads/mc_pi.py).
inline std::uint32_t lowbias32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}
inline std::uint32_t mc_pi_key(std::uint64_t seed) {
  return static_cast<std::uint32_t>((seed * 0x9E3779B9ull) & 0x7FFFFFFFull);
}

}  // namespace jitbench::native
