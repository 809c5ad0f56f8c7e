#include "analysis/analysis.h"

#include "config/catalog.h"
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "results/json.h"

namespace jitbench {
using nlohmann::json;

namespace {
// Values at a JSON pointer over the case's ok cold runs.
std::vector<double> worker_values(const CaseResult& c, const char* pointer) {
  std::vector<double> out;
  const auto ptr = json::json_pointer(pointer);
  for (const auto& r : c.cold)
    if (r.status == Status::Ok && r.worker.contains(ptr) && r.worker.at(ptr).is_number())
      out.push_back(r.worker.at(ptr).get<double>());
  return out;
}

// Growth of the peak RSS over the first call (compile memory), per ok cold run.
std::vector<double> compile_rss_growth(const CaseResult& c) {
  const auto rss_before = worker_values(c, "/memory/rss_before_first_call_kib");
  const auto hwm_first = worker_values(c, "/memory/hwm_after_first_call_kib");
  std::vector<double> out;
  for (std::size_t i = 0; i < std::min(rss_before.size(), hwm_first.size()); ++i)
    out.push_back(hwm_first[i] - rss_before[i]);
  return out;
}

double ratio_or_inf(double num, double den) {
  return den > 0 ? num / den : std::numeric_limits<double>::infinity();
}
}  // namespace

bool is_jit_backend(const std::string& b) {
  return b != "python" && b != "numpy" && b != "native" && b != "torch_eager";
}

std::optional<PhaseBreakdown> phase_breakdown(const RunRecord& r) {
  if (!r.first_call_s || !r.worker.contains("first_call")) return std::nullopt;
  const auto& fc = r.worker["first_call"];
  PhaseBreakdown b;
  b.whole = *r.first_call_s;
  const auto phases = fc.value("phases", json::object());
  for (const auto& name : fc.value("phase_names", json::array())) {
    const auto n = name.get<std::string>();
    const double v = phases.contains(n) && phases[n].is_number() ? phases[n].get<double>() : 0.0;
    b.phases.emplace_back(n, v);
    b.sum_phases += v;
  }
  b.residual = b.whole - b.sum_phases;
  b.reconciled = b.residual >= -kReconcileTolerance * b.whole;
  b.discrepancy_pct = b.residual < 0 && b.whole > 0 ? -b.residual / b.whole * 100.0 : 0.0;
  return b;
}

json breakdown_json(const PhaseBreakdown& b) {
  json phases = json::object();
  for (const auto& [n, v] : b.phases) phases[n] = v;
  return {{"phases", phases},          {"sum_phases_s", b.sum_phases}, {"residual_s", b.residual},
          {"first_call_s", b.whole},   {"reconciled", b.reconciled},   {"discrepancy_pct", b.discrepancy_pct}};
}

std::optional<BreakEven> break_even(std::span<const double> ttfr_jit, std::span<const double> ttfr_eager,
                                    std::span<const double> warm_jit, std::span<const double> warm_eager,
                                    int resamples, std::uint64_t seed) {
  if (ttfr_jit.empty() || ttfr_eager.empty() || warm_jit.empty() || warm_eager.empty()) return std::nullopt;
  BreakEven be;
  be.ttfr_jit = *stats::median(ttfr_jit);
  be.ttfr_eager = *stats::median(ttfr_eager);
  be.warm_jit = *stats::median(warm_jit);
  be.warm_eager = *stats::median(warm_eager);
  const double gain = be.warm_eager - be.warm_jit;
  const double cost = be.ttfr_jit - be.ttfr_eager;
  if (gain <= 0) {
    be.verdict = cost <= 0 ? "immediately" : "never";
    if (cost <= 0) be.calls = 0.0;
  } else if (cost <= 0) {
    be.verdict = "immediately";
    be.calls = 0.0;
  } else {
    be.verdict = "calls";
    be.calls = cost / gain;
  }
  // Bootstrap the four medians independently; an unreachable break-even is +inf.
  std::mt19937_64 rng(seed);
  const auto resample_median = [&](std::span<const double> xs) {
    std::uniform_int_distribution<std::size_t> pick(0, xs.size() - 1);
    std::vector<double> s(xs.size());
    for (auto& x : s) x = xs[pick(rng)];
    return *stats::median(s);
  };
  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double c = resample_median(ttfr_jit) - resample_median(ttfr_eager);
    const double g = resample_median(warm_eager) - resample_median(warm_jit);
    ns.push_back(c <= 0 && g > 0 ? 0.0 : ratio_or_inf(std::max(c, 0.0), g));
  }
  std::sort(ns.begin(), ns.end());
  const auto at = [&](double q) { return ns[static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1))]; };
  const double lo = at(0.025), hi = at(0.975);
  if (std::isfinite(lo)) be.ci_low = lo;
  if (std::isfinite(hi)) be.ci_high = hi;
  return be;
}

const CaseResult* eager_baseline(const CaseResult& jit, const std::vector<CaseResult>& all) {
  // torch.compile is weighed against eager torch (same library, no compile);
  // everything else against NumPy.
  const bool torch = jit.c.backend.rfind("torch_compile", 0) == 0;
  const std::string eager = torch ? (jit.c.backend == "torch_compile_gpu" ? "torch_eager_gpu" : "torch_eager") : "numpy";
  const CaseResult* fallback = nullptr;
  for (const auto& c : all) {
    if (c.c.backend != eager || c.c.workload != jit.c.workload || c.c.n != jit.c.n || c.c.dtype != jit.c.dtype)
      continue;
    if (c.status != Status::Ok) continue;
    if (c.c.cache_policy == jit.c.cache_policy) return &c;
    if (c.c.cache_policy == "cold_cache") fallback = &c;
  }
  if (!fallback && torch && eager != "numpy") {
    CaseResult as_numpy = jit;
    as_numpy.c.backend = "numpy";  // no eager torch case in this run: fall back to NumPy
    return eager_baseline(as_numpy, all);
  }
  return fallback;
}

namespace {
json case_analysis(const CaseResult& c) {
  std::map<std::string, std::vector<double>> phase_values;
  std::vector<std::string> order;
  std::vector<double> residuals;
  int reconciled = 0, measured = 0;
  double worst_pct = 0;
  for (const auto& r : c.cold) {
    if (r.status != Status::Ok) continue;
    auto b = phase_breakdown(r);
    if (!b) continue;
    ++measured;
    reconciled += b->reconciled;
    worst_pct = std::max(worst_pct, b->discrepancy_pct);
    residuals.push_back(b->residual);
    for (const auto& [n, v] : b->phases) {
      if (!phase_values.count(n)) order.push_back(n);
      phase_values[n].push_back(v);
    }
  }
  json phases = json::object();
  for (const auto& n : order) phases[n] = median_or_null(phase_values[n]);

  const auto rss_import = worker_values(c, "/memory/rss_after_import_kib");
  const auto compile_delta = compile_rss_growth(c);
  std::vector<double> device_peak = worker_values(c, "/memory/device_peak_bytes");

  double hits = 0, misses = 0;
  bool cache_reported = false;
  for (const auto& r : c.cold) {
    if (!r.worker.is_object()) continue;
    const auto ev = r.worker.value("cache_events", json::object());
    if (ev.is_object() && ev.contains("hits")) {
      cache_reported = true;
      hits += ev["hits"].get<double>();
      misses += ev.value("misses", 0.0);
    }
  }
  const auto ttfr = cold_values(c, "ttfr_s");
  const auto second = cold_values(c, "second_call_s");
  // Within one process: the median over warm processes of each one's CV.
  std::vector<double> within;
  for (const auto& run : c.warm)
    if (has_timings(run))
      if (auto cv = stats::coefficient_of_variation(run.calls_s)) within.push_back(*cv);
  return {
      {"case", c.c.id},
      {"backend", c.c.backend},
      {"cache_policy", c.c.cache_policy},
      {"status", to_string(c.status)},
      {"first_call",
       {{"median_s", median_or_null(cold_values(c, "first_call_s"))},
        {"phases_median_s", phases},
        {"residual_median_s", median_or_null(residuals)},
        {"runs_with_phases", measured},
        {"runs_reconciled", reconciled},
        {"max_discrepancy_pct", worst_pct}}},
      {"compiles",
       {{"first_call_median", median_or_null(worker_values(c, "/compiles/first_call"))},
        {"later_calls_max", number_or_null(stats::max(worker_values(c, "/compiles/later_calls")))}}},
      {"memory",
       {{"rss_after_import_kib_median", median_or_null(rss_import)},
        {"compile_rss_growth_kib_median", median_or_null(compile_delta)},
        {"peak_rss_kib_max", number_or_null(stats::max(cold_values(c, "max_rss_kib")))},
        {"device_peak_bytes", device_peak.empty() ? json("not reported") : json(*stats::max(device_peak))}}},
      {"cache",
       {{"reported", cache_reported},
        {"hits", hits},
        {"misses", misses}}},
      {"variance",
       {{"between_process_cv_ttfr", number_or_null(stats::coefficient_of_variation(ttfr))},
        {"between_process_cv_second_call", number_or_null(stats::coefficient_of_variation(second))},
        {"between_process_cv_warm", number_or_null(stats::coefficient_of_variation(warm_process_medians(c)))},
        {"within_process_cv_warm", median_or_null(within)}}},
  };
}
}  // namespace

namespace {
double sum_phases(const RunRecord& r) {
  const auto b = phase_breakdown(r);
  return b ? b->sum_phases : 0.0;
}

json compiled_temp_bytes(const CaseResult& c) {
  const json* w = c.first_worker_report();
  if (!w) return nullptr;
  const auto ptr = "/memory/compiled/temp_size_in_bytes"_json_pointer;
  return w->contains(ptr) && w->at(ptr).is_number() ? w->at(ptr) : json(nullptr);
}
}  // namespace

json pairs_json(const std::vector<CaseResult>& cases) {
  // One row per pair x backend x n x dtype x policy; one entry per variant.
  std::map<std::string, json> rows;
  std::vector<std::string> order;
  for (const auto& c : cases) {
    const auto* w = find_workload(c.c.workload);
    if (!w || w->pair.empty()) continue;
    const auto key = fmt::format("{}|{}|{}|{}|{}", w->pair, c.c.backend, c.c.n, c.c.dtype, c.c.cache_policy);
    if (!rows.count(key)) {
      order.push_back(key);
      rows[key] = {{"pair", w->pair}, {"backend", c.c.backend}, {"n", c.c.n}, {"dtype", c.c.dtype},
                   {"cache_policy", c.c.cache_policy}, {"variants", json::array()}};
    }
    std::vector<double> compile_s;
    for (const auto& r : c.cold)
      if (r.status == Status::Ok) compile_s.push_back(sum_phases(r));
    rows[key]["variants"].push_back({{"workload", c.c.workload},
                                     {"case", c.c.id},
                                     {"status", to_string(c.status)},
                                     {"first_call_median_s", median_or_null(cold_values(c, "first_call_s"))},
                                     {"compile_median_s", c.status == Status::Ok ? median_or_null(compile_s) : json(nullptr)},
                                     {"warm_median_s", median_or_null(warm_values(c))},
                                     {"first_call_rss_growth_kib_median", median_or_null(compile_rss_growth(c))},
                                     {"compiled_temp_bytes", compiled_temp_bytes(c)}});
  }
  json out = json::array();
  for (const auto& k : order) out.push_back(rows[k]);
  return out;
}

json accuracy_json(const std::vector<CaseResult>& cases) {
  // mc_pi: error of the estimate vs the time it took, for error-vs-time plots.
  json out = json::array();
  for (const auto& c : cases) {
    if (c.c.workload != "mc_pi" || c.status != Status::Ok) continue;
    const json* w = c.first_worker_report();
    if (!w || !w->contains("workload")) continue;
    out.push_back({{"case", c.c.id}, {"backend", c.c.backend}, {"n", c.c.n}, {"dtype", c.c.dtype},
                   {"cache_policy", c.c.cache_policy},
                   {"abs_error", (*w)["workload"].value("abs_error", json(nullptr))},
                   {"ttfr_median_s", median_or_null(cold_values(c, "ttfr_s"))},
                   {"warm_median_s", median_or_null(warm_values(c))}});
  }
  return out;
}

json analysis_json(const std::vector<CaseResult>& cases) {
  json per_case = json::array();
  for (const auto& c : cases) per_case.push_back(case_analysis(c));

  json be_list = json::array();
  for (const auto& c : cases) {
    // Only ok cases: a warn case (interpreter_only, cache_not_used, ...) is never compared.
    if (!is_jit_backend(c.c.backend) || c.status != Status::Ok) continue;
    const CaseResult* base = eager_baseline(c, cases);
    if (!base) continue;
    const auto tj = cold_values(c, "ttfr_s"), te = cold_values(*base, "ttfr_s");
    const auto wj = warm_values(c), we = warm_values(*base);
    auto be = break_even(tj, te, wj, we);
    if (!be) continue;
    be_list.push_back({{"jit_case", c.c.id},
                       {"eager_case", base->c.id},
                       {"verdict", be->verdict},
                       {"calls", number_or_null(be->calls)},
                       {"calls_ci95", {number_or_null(be->ci_low), number_or_null(be->ci_high)}},
                       {"ttfr_jit_s", be->ttfr_jit},
                       {"ttfr_eager_s", be->ttfr_eager},
                       {"warm_jit_s", be->warm_jit},
                       {"warm_eager_s", be->warm_eager}});
  }

  // Cache modes side by side: one row per backend/workload/n/dtype.
  std::map<std::string, json> rows;
  std::vector<std::string> row_order;
  for (const auto& c : cases) {
    const auto key = c.c.backend + "_" + c.c.workload + "_" + std::to_string(c.c.n) + "_" + c.c.dtype;
    if (!rows.count(key)) {
      row_order.push_back(key);
      rows[key] = {{"key", key}};
    }
    rows[key][c.c.cache_policy] = {{"case", c.c.id},
                                   {"status", to_string(c.status)},
                                   {"reason", c.reason.empty() ? json(nullptr) : json(c.reason)},
                                   {"ttfr_median_s", median_or_null(cold_values(c, "ttfr_s"))},
                                   {"first_call_median_s", median_or_null(cold_values(c, "first_call_s"))}};
  }
  json modes = json::array();
  for (const auto& k : row_order) modes.push_back(rows[k]);

  return {{"schema_version", kAnalysisSchema},
          {"reconcile_tolerance", kReconcileTolerance},
          {"cases", per_case},
          {"break_even", be_list},
          {"cache_modes", modes},
          {"pairs", pairs_json(cases)},
          {"accuracy", accuracy_json(cases)}};
}

}  // namespace jitbench
