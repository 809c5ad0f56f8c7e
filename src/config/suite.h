#pragma once
// A suite: run settings plus a matrix of cases, read from TOML
// (docs/suite-format.md). Errors are values carrying file:line:col.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/catalog.h"
#include "config/environments.h"
#include "config/input_copies.h"
#include "config/names.h"

namespace jitbench {

struct MatrixBlock {
  std::vector<std::string> backends;
  std::vector<std::string> workloads;
  std::vector<long> sizes;
  std::vector<std::string> dtypes;  // "f32" | "f64"
  std::vector<CachePolicy> cache_policies;  // this block's own; empty: the suite's
  std::vector<std::string> environments;    // the [[environments]] it runs in, by name; empty: all of them
};

// Warm calls per process where no count is fixed (no --warm-iters, no suite
// warm_iters: `measure`, the Python API, the pytest plugin, a workload file
// alone): calls until at least min_calls of them and min_time_s seconds of
// them, at most max_calls -- a function of 1 s a call is called 5 times, one
// of 100 us 1000 times (pyperf calibrates its loops by time, hyperfine its
// runs by --min-runs and a minimum time, alike). --target-ci's early stop
// still applies. Native workers, which know no time rule, make
// kFixedWarmCalls calls.
struct WarmCalibration {
  int min_calls = 5;
  double min_time_s = 0.5;
  int max_calls = 1000;
};
inline constexpr int kFixedWarmCalls = 30;  // the default suite's warm_iters, and the native floors' count

struct Suite {
  std::string name = "default";
  std::string source = "<embedded default>";
  int cold_runs = 5;
  std::optional<int> warm_iters;  // none: calibrated by time (WarmCalibration)
  int warm_runs = 1;  // warm processes, each timing its warm calls
  // target_ci (docs/suite-format.md): processes until the 95% interval of the
  // median is within +-target_ci_pct %, from min_runs to max_runs (cold_runs
  // and warm_runs unused), max_time_s per case and side at most.
  std::optional<double> target_ci_pct;
  int min_runs = 5;
  int max_runs = 30;
  std::optional<double> max_time_s;
  std::vector<CachePolicy> cache_policies{CachePolicy::ColdCache};
  std::vector<Precision> precisions{Precision::Default};
  double timeout_s = 300;
  // anatomy = true: run --anatomy for this suite, anatomy_runs processes per JIT case.
  bool anatomy = false;
  int anatomy_runs = 3;
  // count = ["instructions"] (or "instructions:valgrind" / ":hardware"): run
  // --count for this suite, count_runs counting processes per case.
  bool count = false;
  std::string count_source;
  int count_runs = 2;
  std::vector<std::string> workload_paths;  // user workloads, added to the catalog while parsing
  std::vector<MatrixBlock> matrix;
  std::vector<EnvironmentSpec> environments;  // [[environments]]: every case in each (none: the current one)
};

struct ConfigError {
  std::string message;  // one line, "source:line:col: what is wrong"
};

// The matrix's names are checked against `catalog`, to which the suite's
// workload files are added (read from their copies in `copies`, if any): the
// caller plans from the catalog it gets back.
std::variant<Suite, ConfigError> parse_suite(std::string_view text, std::string_view source_name, Catalog& catalog,
                                             const InputCopies& copies = {});
// The suite file itself is read from its copy in `copies`, if it has one.
std::variant<Suite, ConfigError> load_suite_file(const std::string& path, Catalog& catalog,
                                                 const InputCopies& copies = {});
// The embedded default suite: built-in names only.
Suite default_suite();

// The size a user workload file is planned at when its CATALOG gives no sizes
// (docs/user-workloads.md says so).
inline constexpr long kUserWorkloadDefaultSize = 1024;

// `run --workload-path FILE...` with no suite file: the default suite's
// settings, named after the workloads, with one block per workload file: its
// CATALOG's backends, or every backend of `catalog` that runs one of its
// IMPLEMENTATIONS' frameworks (a GPU backend only when `gpu_seen`), at its
// CATALOG's sizes (else kUserWorkloadDefaultSize) and dtypes (else f32).
// An error names the file and the fix.
std::variant<Suite, ConfigError> workload_files_suite(const Catalog& catalog, const std::vector<std::string>& workloads,
                                                      bool gpu_seen);

}  // namespace jitbench
