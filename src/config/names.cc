#include "config/names.h"

#include <array>
#include <utility>

namespace jitbench {
namespace {

template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view s) {
  for (const auto& [e, name] : table)
    if (name == s) return e;
  return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [x, name] : table)
    if (x == e) return name;
  return "?";
}

constexpr std::array<std::pair<Status, std::string_view>, 3> kStatus{
    {{Status::Ok, "ok"}, {Status::Warn, "warn"}, {Status::Failed, "failed"}}};
constexpr std::array<std::pair<CachePolicy, std::string_view>, 3> kPolicy{
    {{CachePolicy::ColdCache, "cold_cache"}, {CachePolicy::WarmCache, "warm_cache"},
     {CachePolicy::WarmProcess, "warm_process"}}};
constexpr std::array<std::pair<Precision, std::string_view>, 2> kPrecision{
    {{Precision::Default, "default"}, {Precision::Highest, "highest"}}};
constexpr std::array<std::pair<RunMode, std::string_view>, 5> kMode{
    {{RunMode::Cold, "cold"}, {RunMode::Warm, "warm"}, {RunMode::Aot, "aot"}, {RunMode::Anatomy, "anatomy"},
     {RunMode::Count, "count"}}};
constexpr std::array<std::pair<ReasonCode, std::string_view>, 23> kReason{{
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

std::string_view to_string(Precision p) { return name_of(kPrecision, p); }
std::optional<Precision> parse_precision(std::string_view s) { return lookup(kPrecision, s); }

std::string_view to_string(RunMode m) { return name_of(kMode, m); }
std::optional<RunMode> parse_run_mode(std::string_view s) { return lookup(kMode, s); }

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
