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

// Growth of the peak RSS over the first two calls (the first call's compile is
// the peak; the second adds only its execution), per ok cold run. Artifacts of
// jitbench 0.1 read the peak right after the first call.
std::vector<double> compile_rss_growth(const CaseResult& c) {
  const auto rss_before = worker_values(c, "/memory/rss_before_first_call_kib");
  auto hwm_first = worker_values(c, "/memory/hwm_after_calls_kib");
  if (hwm_first.empty()) hwm_first = worker_values(c, "/memory/hwm_after_first_call_kib");
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
  const auto* info = find_backend(b);
  return info && info->jit;
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
  b.unattributed = std::max(b.whole - b.sum_phases, 0.0);
  b.unattributed_share = b.whole > 0 ? b.unattributed / b.whole : 0.0;
  return b;
}

json breakdown_json(const PhaseBreakdown& b) {
  json phases = json::object();
  for (const auto& [n, v] : b.phases) phases[n] = v;
  return {{"phases", phases},
          {"sum_phases_s", b.sum_phases},
          {"unattributed_s", b.unattributed},
          {"unattributed_share", b.unattributed_share},
          {"first_call_s", b.whole}};
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

namespace {
// An ok case of `backend` with jit's workload, n, dtype and precision: the same
// cache policy if there is one, else cold_cache.
const CaseResult* find_match(const CaseResult& jit, const std::string& backend, const std::vector<CaseResult>& all) {
  const CaseResult* fallback = nullptr;
  for (const auto& c : all) {
    if (c.c.backend != backend || c.c.workload != jit.c.workload || c.c.n != jit.c.n || c.c.dtype != jit.c.dtype ||
        c.c.precision != jit.c.precision || c.status != Status::Ok)
      continue;
    if (c.c.cache_policy == jit.c.cache_policy) return &c;
    if (c.c.cache_policy == "cold_cache") fallback = &c;
  }
  return fallback;
}
}  // namespace

Baseline eager_baseline(const CaseResult& jit, const std::vector<CaseResult>& all) {
  const auto* info = find_backend(jit.c.backend);
  const std::string own = info ? info->baseline : "";
  if (!own.empty())
    if (const auto* c = find_match(jit, own, all)) return {c, "same_framework", ""};
  Baseline b{find_match(jit, "numpy", all), "numpy", ""};
  if (!own.empty() && b.c)
    b.note = fmt::format("no ok {} case of this workload, size, dtype and precision in the run", own);
  return b;
}

namespace {
// The first call's phases (medians over ok cold runs), their sources, and what
// no phase covers.
json first_call_analysis(const CaseResult& c) {
  std::map<std::string, std::vector<double>> phase_values;
  std::vector<std::string> order;
  std::vector<double> unattributed, shares;
  for (const auto& r : c.cold) {
    if (r.status != Status::Ok) continue;
    auto b = phase_breakdown(r);
    if (!b) continue;
    unattributed.push_back(b->unattributed);
    shares.push_back(b->unattributed_share);
    for (const auto& [n, v] : b->phases) {
      if (!phase_values.count(n)) order.push_back(n);
      phase_values[n].push_back(v);
    }
  }
  json phases = json::object();
  for (const auto& n : order) phases[n] = median_or_null(phase_values[n]);
  const json* w = c.first_worker_report();
  const auto sources_ptr = "/first_call/phase_sources"_json_pointer;
  return {{"median_s", median_or_null(cold_values(c, "first_call_s"))},
          {"phases_median_s", phases},
          {"phase_sources", w && w->contains(sources_ptr) ? w->at(sources_ptr) : json::object()},
          {"unattributed_median_s", median_or_null(unattributed)},
          {"unattributed_share_median", median_or_null(shares)},
          {"runs_with_phases", static_cast<int>(unattributed.size())}};
}

// What the framework's own counters and the kernel's file events say about the
// compile cache, over every run that reported (cold runs and warm processes).
json cache_analysis(const CaseResult& c) {
  double hits = 0, misses = 0, read = 0, written = 0;
  bool reported = false, watched = false;
  std::vector<const RunRecord*> runs;
  for (const auto& r : c.cold) runs.push_back(&r);
  for (const auto& r : c.warm) runs.push_back(&r);
  for (const auto* r : runs) {
    if (!r->worker.is_object()) continue;
    const auto ev = r->worker.value("cache_events", json::object());
    if (ev.is_object() && ev.contains("hits")) {
      reported = true;
      hits += ev["hits"].get<double>();
      misses += ev.value("misses", 0.0);
    }
    const auto files = r->worker.value("cache_files", json::object());
    if (files.is_object() && files.value("available", false)) {
      watched = true;
      read += files.value("entries_read", 0.0);
      written += files.value("entries_written", 0.0);
    }
  }
  const json* w = c.first_worker_report();
  const auto persistent_ptr = "/cache/persistent"_json_pointer;
  return {{"persistent", w && w->contains(persistent_ptr) ? w->at(persistent_ptr) : json(nullptr)},
          {"reported", reported},
          {"hits", hits},
          {"misses", misses},
          {"files_watched", watched},
          {"entries_read", read},
          {"entries_written", written}};
}

json memory_analysis(const CaseResult& c) {
  std::vector<double> device_peak = worker_values(c, "/memory/device_peak_bytes");
  return {{"rss_after_import_kib_median", median_or_null(worker_values(c, "/memory/rss_after_import_kib"))},
          {"compile_rss_growth_kib_median", median_or_null(compile_rss_growth(c))},
          {"peak_rss_kib_max", number_or_null(stats::max(cold_values(c, "max_rss_kib")))},
          {"device_peak_bytes", device_peak.empty() ? json("not reported") : json(*stats::max(device_peak))}};
}

json variance_analysis(const CaseResult& c) {
  // Within one process: the median over warm processes of each one's CV.
  std::vector<double> within;
  for (const auto& run : c.warm)
    if (has_timings(run))
      if (auto cv = stats::coefficient_of_variation(run.calls_s)) within.push_back(*cv);
  return {{"between_process_cv_ttfr", number_or_null(stats::coefficient_of_variation(cold_values(c, "ttfr_s")))},
          {"between_process_cv_second_call",
           number_or_null(stats::coefficient_of_variation(cold_values(c, "second_call_s")))},
          {"between_process_cv_warm", number_or_null(stats::coefficient_of_variation(warm_process_medians(c)))},
          {"within_process_cv_warm", median_or_null(within)}};
}

}  // namespace

json crosscheck_json(const CaseResult& c) {
  if (!c.crosscheck) return nullptr;
  const auto& x = *c.crosscheck;
  if (x.status != Status::Ok)
    return {{"status", to_string(x.status)}, {"reason", x.reason}, {"agrees", nullptr}, {"steps", json::object()}};
  json steps = json::object();
  bool agrees = true;
  for (const char* step : {"trace", "lower", "compile"}) {
    const auto events = worker_values(c, (std::string("/first_call/phases/") + step).c_str());
    const auto aot_ptr = json::json_pointer(std::string("/aot/") + step + "_s");
    if (events.empty() || !x.worker.contains(aot_ptr) || !x.worker.at(aot_ptr).is_number()) continue;
    const double ev = *stats::median(events), aot = x.worker.at(aot_ptr).get<double>();
    const bool ok = std::abs(ev - aot) <= kCrosscheckAbsS ||
                    (ev > 0 && aot > 0 && std::max(ev, aot) / std::min(ev, aot) <= kCrosscheckFactor);
    agrees = agrees && ok;
    steps[step] = {{"event_median_s", ev}, {"aot_s", aot}, {"agrees", ok}};
  }
  if (steps.empty()) return {{"status", "ok"}, {"reason", nullptr}, {"agrees", nullptr}, {"steps", steps}};
  return {{"status", "ok"}, {"reason", nullptr}, {"agrees", agrees}, {"steps", steps}};
}

namespace {
json case_analysis(const CaseResult& c) {
  const json* w = c.first_worker_report();
  const auto by_function_ptr = "/compiles/first_call_by_function"_json_pointer;
  const auto matmul_ptr = "/precision/matmul"_json_pointer;
  return {
      {"case", c.c.id},
      {"backend", c.c.backend},
      {"cache_policy", c.c.cache_policy},
      {"precision", c.c.precision},
      {"matmul_precision", w && w->contains(matmul_ptr) ? w->at(matmul_ptr) : json(nullptr)},
      {"status", to_string(c.status)},
      {"first_call", first_call_analysis(c)},
      {"compiles",
       {{"first_call_median", median_or_null(worker_values(c, "/compiles/first_call"))},
        {"later_calls_max", number_or_null(stats::max(worker_values(c, "/compiles/later_calls")))},
        {"first_call_by_function", w && w->contains(by_function_ptr) ? w->at(by_function_ptr) : json(nullptr)}}},
      {"memory", memory_analysis(c)},
      {"cache", cache_analysis(c)},
      {"harness_gap_median_s", median_or_null(cold_values(c, "harness_gap_s"))},
      {"crosscheck", crosscheck_json(c)},
      {"variance", variance_analysis(c)},
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

// warm_cache: what filling the cache cost, measured in the unmeasured priming
// run (its first call compiled and wrote the entries). null for other policies.
json priming_json(const CaseResult& c) {
  if (!c.priming || !c.priming->first_call_s) return nullptr;
  const auto& r = *c.priming;
  double write = 0;
  bool measured = false;
  if (auto b = phase_breakdown(r))
    for (const auto& [name, v] : b->phases)
      if (name == "cache_write" || name == "cache_save" || name == "store") {
        write += v;
        measured = true;
      }
  const auto written = "/cache_files/entries_written"_json_pointer;
  return {{"status", to_string(r.status)},
          {"first_call_s", *r.first_call_s},
          {"cache_write_s", measured ? json(write) : json(nullptr)},
          {"entries_written", r.worker.contains(written) ? r.worker.at(written) : json(nullptr)}};
}

// Per backend: how much of the first call the named phases cover (the median
// over its cases of each case's median unattributed share).
json attribution_json(const std::vector<CaseResult>& cases) {
  std::map<std::string, std::vector<double>> shares;
  std::vector<std::string> order;
  for (const auto& c : cases) {
    if (c.status != Status::Ok) continue;
    std::vector<double> per_run;
    for (const auto& r : c.cold)
      if (r.status == Status::Ok)
        if (auto b = phase_breakdown(r); b && !b->phases.empty()) per_run.push_back(b->unattributed_share);
    if (per_run.empty()) continue;
    if (!shares.count(c.c.backend)) order.push_back(c.c.backend);
    shares[c.c.backend].push_back(*stats::median(per_run));
  }
  json out = json::array();
  for (const auto& b : order)
    out.push_back({{"backend", b},
                   {"cases", shares[b].size()},
                   {"unattributed_share_median", *stats::median(shares[b])},
                   {"unattributed_share_max", *stats::max(shares[b])}});
  return out;
}

json analysis_json(const std::vector<CaseResult>& cases) {
  json per_case = json::array();
  for (const auto& c : cases) per_case.push_back(case_analysis(c));

  json be_list = json::array();
  for (const auto& c : cases) {
    // Only ok cases: a warn case (interpreter_only, cache_not_used, ...) is never compared.
    if (!is_jit_backend(c.c.backend) || c.status != Status::Ok) continue;
    const auto baseline = eager_baseline(c, cases);
    const CaseResult* base = baseline.c;
    if (!base) continue;
    const auto tj = cold_values(c, "ttfr_s"), te = cold_values(*base, "ttfr_s");
    const auto wj = warm_values(c), we = warm_values(*base);
    auto be = break_even(tj, te, wj, we);
    if (!be) continue;
    be_list.push_back({{"jit_case", c.c.id},
                       {"eager_case", base->c.id},
                       {"baseline", {{"kind", baseline.kind}, {"note", baseline.note.empty() ? json(nullptr) : json(baseline.note)}}},
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
    const auto key = make_case_id(c.c.backend, c.c.workload, c.c.n, c.c.dtype, "cold_cache", c.c.precision);
    if (!rows.count(key)) {
      row_order.push_back(key);
      rows[key] = {{"key", key}};
    }
    rows[key][c.c.cache_policy] = {{"case", c.c.id},
                                   {"status", to_string(c.status)},
                                   {"reason", c.reason.empty() ? json(nullptr) : json(c.reason)},
                                   {"ttfr_median_s", median_or_null(cold_values(c, "ttfr_s"))},
                                   {"first_call_median_s", median_or_null(cold_values(c, "first_call_s"))},
                                   {"priming", priming_json(c)}};
  }
  json modes = json::array();
  for (const auto& k : row_order) modes.push_back(rows[k]);

  return {{"schema_version", kAnalysisSchema},
          {"attribution", attribution_json(cases)},
          {"cases", per_case},
          {"break_even", be_list},
          {"cache_modes", modes},
          {"pairs", pairs_json(cases)},
          {"accuracy", accuracy_json(cases)}};
}

}  // namespace jitbench
