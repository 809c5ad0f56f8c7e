#include "config/names.h"

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

namespace jitbench {
namespace {

// One entry of a closed vocabulary: its enum, its one string form and, for
// the names a user chooses, what it means.
template <typename E>
struct NameEntry {
  E value;
  std::string_view name;
  std::string_view summary = {};
};

template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<NameEntry<E>, N>& table, std::string_view s) {
  for (const auto& x : table)
    if (x.name == s) return x.value;
  return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view name_of(const std::array<NameEntry<E>, N>& table, E e) {
  for (const auto& x : table)
    if (x.value == e) return x.name;
  return "?";
}

template <typename E, std::size_t N>
std::vector<NameInfo> name_infos(const std::array<NameEntry<E>, N>& table) {
  std::vector<NameInfo> out;
  for (const auto& x : table) out.push_back({std::string(x.name), std::string(x.summary)});
  return out;
}

std::string comma_joined(const std::vector<NameInfo>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x.name;
  return out;
}

constexpr std::array<NameEntry<Status>, 3> kStatus{
    {{Status::Ok, "ok"}, {Status::Warn, "warn"}, {Status::Failed, "failed"}}};
constexpr std::array<NameEntry<CachePolicy>, 3> kPolicy{{
    {CachePolicy::ColdCache, "cold_cache",
     "fresh process, the framework's default cache settings, caches empty (alias: process_cold)"},
    {CachePolicy::WarmCache, "warm_cache",
     "fresh process, persistent compile cache primed by an unmeasured run and kept"},
    {CachePolicy::WarmProcess, "warm_process",
     "framework already imported, another function compiled: first call of a new function"},
}};
constexpr std::array<NameEntry<Precision>, 2> kPrecision{{
    {Precision::Default, "default",
     "each framework's out-of-the-box matmul precision (TF32 on recent GPUs for JAX and TensorFlow)"},
    {Precision::Highest, "highest", "IEEE float32 products everywhere: every backend computes the same thing"},
}};
constexpr std::array<NameEntry<RunMode>, 5> kMode{{
    {RunMode::Cold, "cold", "a fresh process: import, setup, the first call and the second"},
    {RunMode::Warm, "warm", "the warm calls after a first call"},
    {RunMode::Aot, "aot", "an ahead-of-time trace, lower, compile and execute (the phases' cross-check)"},
    {RunMode::Anatomy, "anatomy", "the first call's compile taken apart (docs/anatomy.md)"},
    {RunMode::Count, "count", "the instructions executed between the worker's marks (run --count)"},
}};
constexpr std::array<NameEntry<ReasonCode>, 23> kReason{{
    {ReasonCode::MissingDependency, "missing_dependency"},
    {ReasonCode::GpuUnavailable, "gpu_unavailable"},
    {ReasonCode::Unsupported, "unsupported"},
    {ReasonCode::InterpreterOnly, "interpreter_only"},
    {ReasonCode::CacheNotUsed, "cache_not_used"},
    {ReasonCode::CachePartiallyUsed, "cache_partially_used"},
    {ReasonCode::CacheEvidenceConflict, "cache_evidence_conflict"},
    {ReasonCode::CacheUnverified, "cache_unverified"},
    {ReasonCode::CacheNotCold, "cache_not_cold"},
    {ReasonCode::CrosscheckDisagrees, "crosscheck_disagrees"},
    {ReasonCode::CrosscheckFailed, "crosscheck_failed"},
    {ReasonCode::AnatomyFailed, "anatomy_failed"},
    {ReasonCode::CountFailed, "count_failed"},
    {ReasonCode::CountUnsupported, "count_unsupported"},
    {ReasonCode::EnvironmentUnavailable, "environment_unavailable"},
    {ReasonCode::WorkerFailed, "worker_failed"},
    {ReasonCode::Timeout, "timeout"},
    {ReasonCode::IncorrectResult, "incorrect_result"},
    {ReasonCode::Unsynchronized, "unsynchronized"},
    {ReasonCode::InconsistentTimings, "inconsistent_timings"},
    {ReasonCode::ProtocolViolation, "protocol_violation"},
    {ReasonCode::PrecisionMismatch, "precision_mismatch"},
    {ReasonCode::Interrupted, "interrupted"},
}};

}  // namespace

std::string_view to_string(Status s) { return name_of(kStatus, s); }
std::optional<Status> parse_status(std::string_view s) { return lookup(kStatus, s); }
int severity(Status s) { return static_cast<int>(s); }

std::string_view to_string(CachePolicy p) { return name_of(kPolicy, p); }
std::optional<CachePolicy> parse_cache_policy(std::string_view s) {
  if (s == "process_cold") return CachePolicy::ColdCache;  // the seed harness's name
  return lookup(kPolicy, s);
}
const std::vector<NameInfo>& cache_policies() {
  static const std::vector<NameInfo> kInfos = name_infos(kPolicy);
  return kInfos;
}
bool is_cache_policy(std::string_view name) { return parse_cache_policy(name).has_value(); }
std::string cache_policy_names() { return comma_joined(cache_policies()) + ", process_cold (alias of cold_cache)"; }

std::string_view to_string(Precision p) { return name_of(kPrecision, p); }
std::optional<Precision> parse_precision(std::string_view s) { return lookup(kPrecision, s); }
const std::vector<NameInfo>& precisions() {
  static const std::vector<NameInfo> kInfos = name_infos(kPrecision);
  return kInfos;
}
bool is_precision(std::string_view name) { return parse_precision(name).has_value(); }
std::string precision_names() { return comma_joined(precisions()); }

std::string_view to_string(RunMode m) { return name_of(kMode, m); }
std::optional<RunMode> parse_run_mode(std::string_view s) { return lookup(kMode, s); }
const std::vector<NameInfo>& run_modes() {
  static const std::vector<NameInfo> kInfos = name_infos(kMode);
  return kInfos;
}

namespace {
std::string python_dict(const char* name, const std::vector<NameInfo>& v) {
  std::string out = std::string(name) + " = {\n";
  for (const auto& x : v)
    out += "    " + nlohmann::json(x.name).dump() + ":\n        " + nlohmann::json(x.summary).dump() + ",\n";
  return out + "}\n";
}
}  // namespace

std::string worker_names_py() {
  return "\"\"\"The names jitbench hands a worker on its command line, each with what it means,\n"
         "as jitbench spells them (src/config/names.cc: the one list). Generated: do not\n"
         "edit. The unit test Names.WorkerCopyIsCurrent fails while this file differs;\n"
         "JITBENCH_UPDATE_GOLDEN=1 build/jitbench_tests --gtest_filter='Names.*' rewrites it.\"\"\"\n\n" +
         python_dict("CACHE_POLICIES", cache_policies()) + "\n" + python_dict("PRECISIONS", precisions()) + "\n" +
         python_dict("RUN_MODES", run_modes());
}

bool Reason::is_cache_claim() const {
  return code == ReasonCode::CacheNotUsed || code == ReasonCode::CachePartiallyUsed ||
         code == ReasonCode::CacheEvidenceConflict || code == ReasonCode::CacheUnverified ||
         code == ReasonCode::CacheNotCold;
}

std::string to_string(const Reason& r) {
  if (r.code == ReasonCode::None) return "";
  std::string out(name_of(kReason, r.code));
  if (!r.arg.empty()) out += ": " + r.arg;
  return out;
}

std::optional<Reason> parse_reason(std::string_view s) {
  if (s.empty()) return Reason{};
  const auto colon = s.find(':');
  const auto code = lookup(kReason, s.substr(0, colon));
  if (!code) return std::nullopt;
  Reason r{*code, ""};
  if (colon != std::string_view::npos) {
    auto arg = s.substr(colon + 1);
    while (!arg.empty() && arg.front() == ' ') arg.remove_prefix(1);
    r.arg = std::string(arg);
  }
  return r;
}

}  // namespace jitbench
