#include "export/ml_suite.h"

#include <fmt/format.h>

#include "config/catalog.h"
#include "report/format.h"
#include "results/json.h"
#include "stats/stats.h"
#include "util/sha256.h"

namespace jitbench {
namespace {
using nlohmann::json;

json contract_summary(const std::vector<double>& xs) {
  return {{"min", *stats::min(xs)}, {"median", *stats::median(xs)}, {"p95", *stats::percentile(xs, 95)}};
}

std::string pkg(const json& env, const char* name) {
  const auto& p = env.value("python", json::object()).value("packages", json::object());
  return p.contains(name) && p[name].is_string() ? p[name].get<std::string>() : "";
}

double nonneg(const std::optional<double>& v) { return v && *v > 0 ? *v : 0.0; }

double median_or_zero(const std::vector<double>& xs) { return xs.empty() ? 0.0 : *stats::median(xs); }
}  // namespace

bool in_ml_contract(const CaseResult& r) {
  // The contract's case ids carry no cache mode: only the cold-cache cases go.
  return r.c.cache_policy == "cold_cache" && r.c.precision == kDefaultPrecision &&
         (r.c.backend == "numpy" || r.c.backend == "jax_jit_cpu" || r.c.backend == "jax_jit_gpu");
}

std::string canonical_config_sha256(const json& config) { return sha256_hex(config.dump() + "\n"); }

std::string json_text(const json& j) { return j.dump(2) + "\n"; }

json ml_case(const CaseResult& r, const json& env) {
  const json config = {{"backend", r.c.backend},         {"workload", r.c.workload},   {"n", r.c.n},
                       {"dtype", dtype_long(r.c.dtype)}, {"cold_runs", r.cold_runs}, {"warm_iters", r.warm_iters},
                       {"cache_policy", "process_cold"}};  // the contract's name for cold_cache
  json runs = json::array();
  for (const auto& run : r.cold) {
    runs.push_back({{"import_s", nonneg(run.import_s)},
                    {"first_call_s", nonneg(run.first_call_s)},
                    {"second_call_s", nonneg(run.second_call_s)},
                    {"total_s", nonneg(run.total_s)},
                    {"status", to_string(run.status)},
                    {"reason", run.reason}});
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

  const auto calls = warm_values(r);
  json warm = {{"calls_s", calls}, {"n_iters", static_cast<int>(calls.size())}};
  if (!calls.empty()) warm["call_s"] = contract_summary(calls);
  if (!r.warm.empty()) {
    // The most severe warm process speaks for them all, as for the case.
    const RunRecord* worst = &r.warm.front();
    for (const auto& run : r.warm)
      if (severity(run.status) > severity(worst->status)) worst = &run;
    warm["status"] = to_string(worst->status);
    warm["reason"] = worst->reason;
  } else {
    warm["status"] = r.status == Status::Ok ? "ok" : "skipped";
    warm["reason"] = r.status == Status::Ok ? "" : "cold runs did not succeed";
  }

  const json* rep = r.first_worker_report();
  json device = nullptr;
  if (rep && rep->contains("device") && (*rep)["device"].is_object()) {
    const auto& d = (*rep)["device"];
    device = {{"platform", d.value("platform", "")}, {"kind", d.value("kind", "")}, {"count", d.value("count", 0)}};
  }
  const bool uses_jax = r.c.backend.rfind("jax", 0) == 0;
  json out = {{"schema_version", kMlCaseSchema},
              {"suite", "ml"},
              {"case", r.c.id},
              {"deterministic", r.deterministic},
              {"status", to_string(r.status)},
              {"reason", r.reason.empty() ? json(nullptr) : json(r.reason)},
              {"meta",
               {{"python", env.value("python", json::object()).value("version", "")},
                {"platform", env.value("python", json::object()).value("platform", "")},
                {"numpy_version", pkg(env, "numpy")},
                {"jax_version", uses_jax ? pkg(env, "jax") : ""}}},
              {"dataset", {{"id", "generated:ml:" + r.c.id}, {"sha256", canonical_config_sha256(config)}}},
              {"config", config},
              {"device", device},
              {"timing", {{"cold", cold}, {"warm", warm}}}};
  return out;
}

json ml_suite_index(const std::vector<MlCaseFile>& files, bool deterministic, const json& env) {
  json cases = json::array();
  int n_ok = 0, n_warn = 0, n_failed = 0;
  std::string worst;
  double worst_ttfr = -1;
  bool worst_failed = false;
  for (const auto& f : files) {
    const auto& r = *f.result;
    std::vector<double> ttfr;
    for (const auto& run : r.cold)
      if (run.status == Status::Ok && run.import_s && run.first_call_s) ttfr.push_back(*run.import_s + *run.first_call_s);
    const double cold_median = median_or_zero(ttfr);
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
          {"meta",
           {{"python", env.value("python", json::object()).value("version", "")},
            {"platform", env.value("python", json::object()).value("platform", "")}}},
          {"cases", cases},
          {"summary",
           {{"n_cases", static_cast<int>(files.size())},
            {"n_ok", n_ok},
            {"n_warn", n_warn},
            {"n_failed", n_failed},
            {"worst_case", worst}}}};
}

std::string ml_readme_snippet(const json& index, const std::vector<MlCaseFile>& files) {
  std::string md = "## ML suite: time to first result\n\n";
  md += "Cold TTFR is the time from a fresh process to the first result (framework import with backend "
        "initialisation, plus the first call); a warm call is one call after the function is compiled.\n\n";
  md += "| Case | Status | Cold TTFR (median) | Warm call (median) |\n|---|---|---|---|\n";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& row = index["cases"][i];
    std::string device;
    if (const auto* rep = files[i].result->first_worker_report(); rep && rep->contains("device") && (*rep)["device"].is_object())
      device = (*rep)["device"].value("kind", "");
    md += fmt::format("| `{}`{} | {} | {} | {} |\n", row["case"].get<std::string>(),
                      device.empty() ? "" : fmt::format(" (`{}`)", device), row["status"].get<std::string>(),
                      format_seconds(row["cold_ttfr_median_s"].get<double>()),
                      format_seconds(row["warm_call_median_s"].get<double>()));
  }
  return md;
}

}  // namespace jitbench
