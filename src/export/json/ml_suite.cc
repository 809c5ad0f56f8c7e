#include "export/json/ml_suite.h"

#include <fmt/format.h>

#include "config/catalog.h"
#include "export/json/json_util.h"
#include "report/format.h"
#include "report/table.h"
#include "results/views.h"
#include "stats/stats.h"
#include "util/sha256.h"
#include "util/json_get.h"

namespace jitbench {
namespace {
using nlohmann::json;

double nonneg(const std::optional<double>& v) { return v && *v > 0 ? *v : 0.0; }

double median_or_zero(const std::vector<double>& xs) { return xs.empty() ? 0.0 : *stats::median(xs); }

json contract_summary(const std::vector<double>& xs) {
  return {{"min", *stats::min(xs)}, {"median", *stats::median(xs)}, {"p95", *stats::percentile(xs, 95)}};
}

std::string pkg(const EnvironmentInfo& env, const char* name) {
  for (const auto& [k, v] : env.packages)
    if (k == name) return v;
  return "";
}

json device_json(const CaseResult& r) {
  const auto* rep = r.first_worker_report();
  if (!rep || !rep->raw.contains("device") || !rep->raw["device"].is_object()) return nullptr;
  const auto& d = rep->raw["device"];
  return {{"platform", string_or(d, "platform", "")}, {"kind", string_or(d, "kind", "")}, {"count", d.contains("count") && d["count"].is_number_integer() ? d["count"].get<long long>() : 0}};
}

json ml_cold_json(const CaseResult& r) {
  json runs = json::array();
  for (const auto& run : r.cold) {
    runs.push_back({{"import_s", nonneg(run.import_s)},
                    {"first_call_s", nonneg(run.first_call_s)},
                    {"second_call_s", nonneg(run.second_call_s)},
                    {"total_s", nonneg(run.total_s)},
                    {"status", to_string(run.status)},
                    {"reason", to_string(run.reason)}});
  }
  // The contract's TTFR is import + first call (its import_s includes device
  // initialisation); jitbench's own ttfr_s also counts building the inputs.
  std::vector<double> imp, first, ttfr, total;
  for (const auto& run : r.cold) {
    if (run.status != Status::Ok || !run.import_s || !run.first_call_s) continue;
    imp.push_back(*run.import_s);
    first.push_back(*run.first_call_s);
    ttfr.push_back(*run.import_s + *run.first_call_s);
    if (run.total_s) total.push_back(*run.total_s);
  }
  json cold = {{"runs", runs}, {"n_runs", static_cast<int>(r.cold.size())}};
  if (!imp.empty()) {
    cold["import_s"] = contract_summary(imp);
    cold["first_call_s"] = contract_summary(first);
    cold["ttfr_s"] = contract_summary(ttfr);
  }
  if (!total.empty()) cold["total_s"] = contract_summary(total);
  return cold;
}

json ml_warm_json(const CaseResult& r) {
  const auto calls = warm_values(r);
  json warm = {{"calls_s", calls}, {"n_iters", static_cast<int>(calls.size())}};
  if (!calls.empty()) warm["call_s"] = contract_summary(calls);
  if (!r.warm.empty()) {
    // The most severe warm process speaks for them all, as for the case.
    const RunRecord* worst = &r.warm.front();
    for (const auto& run : r.warm)
      if (severity(run.status) > severity(worst->status)) worst = &run;
    warm["status"] = to_string(worst->status);
    warm["reason"] = to_string(worst->reason);
  } else {
    warm["status"] = r.status == Status::Ok ? "ok" : "skipped";
    warm["reason"] = r.status == Status::Ok ? "" : "cold runs did not succeed";
  }
  return warm;
}

}  // namespace

bool in_ml_contract(const CaseResult& r) {
  // The contract's case ids carry no cache mode: only the cold-cache cases go.
  return r.c.cache_policy == CachePolicy::ColdCache && r.c.precision == Precision::Default &&
         (r.c.backend == "numpy" || r.c.backend == "jax_jit_cpu" || r.c.backend == "jax_jit_gpu");
}

std::string canonical_config_sha256(const json& config) { return sha256_hex(config.dump() + "\n"); }


json ml_case(const CaseResult& r, const EnvironmentInfo& env) {
  const json config = {{"backend", r.c.backend},         {"workload", r.c.workload},   {"n", r.c.n},
                       {"dtype", dtype_long(r.c.dtype)}, {"cold_runs", r.cold_runs}, {"warm_iters", r.warm_iters},
                       {"cache_policy", "process_cold"}};  // the contract's name for cold_cache
  const bool uses_jax = r.c.backend.rfind("jax", 0) == 0;
  return {{"schema_version", kMlCaseSchema},
          {"suite", "ml"},
          {"case", r.c.id},
          {"deterministic", r.deterministic},
          {"status", to_string(r.status)},
          {"reason", text_or_null(to_string(r.reason))},
          {"meta",
           {{"python", env.python_version},
            {"platform", env.python_platform},
            {"numpy_version", pkg(env, "numpy")},
            {"jax_version", uses_jax ? pkg(env, "jax") : ""}}},
          {"dataset", {{"id", "generated:ml:" + r.c.id}, {"sha256", canonical_config_sha256(config)}}},
          {"config", config},
          {"device", device_json(r)},
          {"timing", {{"cold", ml_cold_json(r)}, {"warm", ml_warm_json(r)}}}};
}

namespace {
double cold_ttfr_median(const CaseResult& r) {
  std::vector<double> ttfr;
  for (const auto& run : r.cold)
    if (run.status == Status::Ok && run.import_s && run.first_call_s) ttfr.push_back(*run.import_s + *run.first_call_s);
  return median_or_zero(ttfr);
}
}  // namespace

json ml_suite_index(const std::vector<MlCaseFile>& files, bool deterministic, const EnvironmentInfo& env) {
  json cases = json::array();
  int n_ok = 0, n_warn = 0, n_failed = 0;
  std::string worst;
  double worst_ttfr = -1;
  bool worst_failed = false;
  for (const auto& f : files) {
    const auto& r = *f.result;
    const double cold_median = cold_ttfr_median(r);
    cases.push_back({{"case", f.case_id},
                     {"path", f.path},
                     {"sha256", f.sha256},
                     {"status", to_string(r.status)},
                     {"cold_ttfr_median_s", cold_median},
                     {"warm_call_median_s", median_or_zero(warm_values(r))}});
    (r.status == Status::Ok ? n_ok : r.status == Status::Warn ? n_warn : n_failed)++;
    // A failed case is the worst; among failed cases, or among the rest, the
    // highest median cold TTFR; ties keep the earlier case.
    const bool failed = r.status == Status::Failed;
    if (worst.empty() || (failed && !worst_failed) || (failed == worst_failed && cold_median > worst_ttfr)) {
      worst = f.case_id;
      worst_ttfr = cold_median;
      worst_failed = failed;
    }
  }
  return {{"schema_version", kMlSuiteSchema},
          {"suite", "ml"},
          {"deterministic", deterministic},
          {"meta", {{"python", env.python_version}, {"platform", env.python_platform}}},
          {"cases", cases},
          {"summary",
           {{"n_cases", static_cast<int>(files.size())},
            {"n_ok", n_ok},
            {"n_warn", n_warn},
            {"n_failed", n_failed},
            {"worst_case", worst}}}};
}

std::string ml_readme_snippet(const std::vector<MlCaseFile>& files) {
  std::string md = "## ML suite: time to first result\n\n";
  md += "Cold TTFR is the time from a fresh process to the first result (framework import with backend "
        "initialisation, plus the first call); a warm call is one call after the function is compiled.\n\n";
  Table t{{"Case", "Status", "Cold TTFR (median)", "Warm call (median)"}, {}};
  for (const auto& f : files) {
    const auto& r = *f.result;
    const auto* rep = r.first_worker_report();
    const std::string device = rep ? rep->device_kind : "";
    t.add({fmt::format("`{}`{}", f.case_id, device.empty() ? "" : fmt::format(" (`{}`)", device)),
           std::string(to_string(r.status)), format_seconds(cold_ttfr_median(r)),
           format_seconds(median_or_zero(warm_values(r)))});
  }
  return md + to_markdown(t);
}

}  // namespace jitbench
