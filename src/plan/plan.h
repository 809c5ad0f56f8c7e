#pragma once
// Expands a suite (plus command-line selections) into the ordered list of cases.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/catalog.h"
#include "config/names.h"
#include "config/suite.h"

namespace jitbench {

struct Case {
  std::string id;  // <backend>_<workload>_<n>_<f32|f64>[__<policy>][__<precision>]
  std::string backend;
  std::string workload;
  long n = 0;
  std::string dtype;  // f32 | f64
  CachePolicy cache_policy = CachePolicy::ColdCache;
  Precision precision = Precision::Default;
  // Facts from the catalog, carried with the case so that nothing after the
  // plan needs the catalog.
  bool jit = false;
  std::string baseline;  // the same framework without its JIT ("" -> NumPy)
  std::string pair;      // the workload's side-by-side pair ("" for none)
  bool aot_crosscheck = false;
  bool gpu = false;                      // the backend runs on a GPU
  bool writes_cache_by_default = false;  // its framework writes a compile cache even at default settings
  std::string env;  // the environment it runs in (config/environments.h); "" = the run's own interpreter
  // The records the plan resolved, shared with the catalog it was made from
  // and outliving it: whoever starts, costs or analyses the case reads these,
  // never the catalog by name. Null when the catalog does not know the name
  // (a user workload of a run read back from disk).
  std::shared_ptr<const BackendInfo> backend_info;
  std::shared_ptr<const WorkloadInfo> workload_info;

  // The program its workers are (Python unless the backend's record says otherwise).
  WorkerKind worker() const { return backend_info ? backend_info->worker : WorkerKind::Python; }
  // A user workload's file ("" for a built-in workload).
  std::string workload_path() const { return workload_info ? workload_info->path : ""; }
};

// A case with its id, catalog facts and records, resolved in `catalog`.
Case make_case(const Catalog& catalog, const std::string& backend, const std::string& workload, long n,
               const std::string& dtype, CachePolicy policy = CachePolicy::ColdCache,
               Precision precision = Precision::Default, const std::string& env = "");
// A case read back from disk (or a test's): resolved in the built-in catalog,
// so a user workload's case carries no workload record (workload_record below
// falls back on the one its worker reported).
Case make_case(const std::string& backend, const std::string& workload, long n, const std::string& dtype,
               CachePolicy policy = CachePolicy::ColdCache, Precision precision = Precision::Default,
               const std::string& env = "");
// The record of the case's workload (config/catalog.h, workload_record): the
// one it carries when loaded, else the one its worker reported (`reported`,
// null for none), else the carried placeholder.
std::optional<WorkloadInfo> workload_record(const Case& c, const nlohmann::json& reported);

// The seed contract's case id; policies other than cold_cache, precisions
// other than default and environments get a suffix (`__warm_cache`,
// `__highest`, `__env-<name>`) so that ids stay unique when one suite runs
// several cache modes, precisions or environments.
std::string make_case_id(const std::string& backend, const std::string& workload, long n, const std::string& dtype,
                         CachePolicy policy = CachePolicy::ColdCache, Precision precision = Precision::Default,
                         const std::string& env = "");
// The id without its `__env-<name>` part: the same case in another environment has the same one.
std::string without_environment(const std::string& case_id);
// How progress names cases measured as one interleaved group: the id alone
// for one case; for several, every id, or where they would not fit on a line
// "N cases interleaved: <first> and N-1 more".
std::string group_label(const std::vector<std::string>& ids);

// "<workload>_<n>_<f32|f64>", as --cases takes them ("matmul_512_f32").
struct CaseSpec {
  std::string workload;
  long n = 0;
  std::string dtype;
};
// The workload must be one of `catalog`'s. "<workload>_<n>" without a dtype
// means each of the workload's CATALOG dtypes (f32 when it gives none).
std::variant<std::vector<CaseSpec>, std::string> parse_case_spec(const std::string& text, const Catalog& catalog);

struct Selection {
  std::vector<std::string> backends;          // empty: the suite's
  std::vector<CaseSpec> cases;                // empty: the suite's
  std::vector<CachePolicy> cache_policies;    // empty: the suite's
  std::vector<Precision> precisions;          // empty: the suite's
  std::vector<EnvironmentSpec> environments;  // empty: the suite's ([[environments]]; none: the run's own)
};

// Each case resolved once in `catalog` (the suite's names were checked against
// it). Errors (an empty plan, say) come back as a one-line string.
std::variant<std::vector<Case>, std::string> make_plan(const Catalog& catalog, const Suite& suite,
                                                       const Selection& sel);

}  // namespace jitbench
