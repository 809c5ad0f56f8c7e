#pragma once
// The names jitbench accepts. The Python worker has its own registry; the e2e
// test test_catalog_matches_worker keeps the two in step.
#include <string>
#include <string_view>
#include <vector>

namespace jitbench {

struct BackendInfo {
  std::string name;
  std::string package;   // the import that must succeed (missing_dependency: <package>)
  bool wants_gpu;
  std::string summary;
};

struct WorkloadInfo {
  std::string name;
  std::string summary;
};

struct CachePolicyInfo {
  std::string name;
  std::string summary;
};

const std::vector<BackendInfo>& backends();
const std::vector<WorkloadInfo>& workloads();
const std::vector<CachePolicyInfo>& cache_policies();
bool is_backend(std::string_view name);
bool is_workload(std::string_view name);
bool is_cache_policy(std::string_view name);
// "process_cold" (the seed's name) -> "cold_cache"; other names unchanged.
std::string canonical_cache_policy(std::string_view name);
// "a, b, c" for error messages.
std::string backend_names();
std::string workload_names();
std::string cache_policy_names();

// Case dtype as written in case ids ("f32") and in configs ("float32").
bool is_dtype(std::string_view short_name);
std::string dtype_long(std::string_view short_name);

}  // namespace jitbench
