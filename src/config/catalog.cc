#include "config/catalog.h"

#include <algorithm>

namespace jitbench {

const std::vector<BackendInfo>& backends() {
  static const std::vector<BackendInfo> kBackends = {
      {"python", "", false, "plain Python loops (no JIT, no vectorisation)"},
      {"numpy", "numpy", false, "NumPy, eager (the seed's baseline)"},
      {"numba", "numba", false, "numba.njit(cache=True)"},
      {"jax_jit_cpu", "jax", false, "jax.jit on the CPU backend"},
      {"jax_jit_gpu", "jax", true, "jax.jit on a CUDA GPU"},
  };
  return kBackends;
}

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> kWorkloads = {
      {"matmul", "N x N matrix product (library matmul in every backend)"},
      {"mc_pi", "Monte Carlo pi from n samples, counter-based hash RNG"},
      {"retrace_raw", "sum(tanh(x)^2) over 24 inputs of varying length up to n: one compile per new length"},
      {"retrace_bucketed", "the same stream padded to power-of-two buckets with a mask: one compile per bucket"},
      {"null", "returns a constant: measures the harness's own overhead"},
  };
  return kWorkloads;
}

const std::vector<CachePolicyInfo>& cache_policies() {
  static const std::vector<CachePolicyInfo> kPolicies = {
      {"cold_cache", "fresh process, empty compile cache owned by jitbench (alias: process_cold)"},
      {"warm_cache", "fresh process, compile cache primed by an unmeasured run and kept"},
      {"warm_process", "framework already imported, another function compiled: first call of a new function"},
  };
  return kPolicies;
}

namespace {
template <typename T>
bool contains(const std::vector<T>& v, std::string_view name) {
  return std::any_of(v.begin(), v.end(), [&](const T& x) { return x.name == name; });
}
template <typename T>
std::string names(const std::vector<T>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x.name;
  return out;
}
}  // namespace

bool is_backend(std::string_view name) { return contains(backends(), name); }
bool is_workload(std::string_view name) { return contains(workloads(), name); }
bool is_cache_policy(std::string_view name) { return contains(cache_policies(), canonical_cache_policy(name)); }

std::string canonical_cache_policy(std::string_view name) {
  if (name == "process_cold") return "cold_cache";  // the seed harness's name
  return std::string(name);
}
std::string backend_names() { return names(backends()); }
std::string workload_names() { return names(workloads()); }
std::string cache_policy_names() { return names(cache_policies()) + ", process_cold (alias of cold_cache)"; }

bool is_dtype(std::string_view s) { return s == "f32" || s == "f64"; }
std::string dtype_long(std::string_view s) { return s == "f32" ? "float32" : "float64"; }

}  // namespace jitbench
