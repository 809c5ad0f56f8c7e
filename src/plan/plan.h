#pragma once
// Expands a suite (plus command-line selections) into the ordered list of cases.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/suite.h"

namespace jitbench {

struct Case {
  std::string id;  // <backend>_<workload>_<n>_<f32|f64>[__<policy>][__<precision>]
  std::string backend;
  std::string workload;
  long n = 0;
  std::string dtype;         // f32 | f64
  std::string cache_policy;  // cold_cache | warm_cache | warm_process (canonical names)
  std::string precision = "default";  // default | highest (config/catalog.h)
};

// The seed contract's case id; policies other than cold_cache and precisions
// other than default get a suffix so that ids stay unique when one suite runs
// several cache modes or precisions.
std::string make_case_id(const std::string& backend, const std::string& workload, long n,
                         const std::string& dtype, const std::string& cache_policy,
                         const std::string& precision = "default");

// "<workload>_<n>_<f32|f64>", as --cases takes them ("matmul_512_f32").
struct CaseSpec {
  std::string workload;
  long n = 0;
  std::string dtype;
};
std::variant<CaseSpec, std::string> parse_case_spec(const std::string& text);

struct Selection {
  std::vector<std::string> backends;     // empty: the suite's
  std::vector<CaseSpec> cases;           // empty: the suite's
  std::vector<std::string> cache_policies;  // empty: the suite's
  std::vector<std::string> precisions;      // empty: the suite's
};

// Errors (an empty plan, say) come back as a one-line string.
std::variant<std::vector<Case>, std::string> make_plan(const Suite& suite, const Selection& sel);

}  // namespace jitbench
