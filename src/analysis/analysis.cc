#include "analysis/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "config/catalog.h"
#include "stats/stats.h"
#include "util/json_get.h"

namespace jitbench {

namespace {
// One number from the worker reports of the case's ok cold runs, where present.
template <typename Get>
std::vector<double> report_values(const CaseResult& c, Get get) {
  std::vector<double> out;
  for (const auto& r : c.cold)
    if (r.status == Status::Ok)
      if (std::optional<double> v = get(r.worker)) out.push_back(*v);
  return out;
}

// Growth of the peak RSS over the first two calls (the first call's compile is
// the peak; the second adds only its execution), per ok cold run.
std::vector<double> compile_rss_growth(const CaseResult& c) {
  const auto before = report_values(c, [](const WorkerReport& w) { return w.rss_before_first_call_kib; });
  const auto peak = report_values(c, [](const WorkerReport& w) { return w.hwm_after_calls_kib; });
  std::vector<double> out;
  for (std::size_t i = 0; i < std::min(before.size(), peak.size()); ++i) out.push_back(peak[i] - before[i]);
  return out;
}

std::optional<double> median_of(const std::vector<double>& xs) { return stats::median(xs); }
}  // namespace

namespace {
// Ratios computed from medians land a hair off a whole number (0.8 / 0.008 is
// 100.00000000000001): whole numbers within this are taken as whole.
constexpr double kWholeSlack = 1e-9;

// N* of one set of medians: cost = TTFR_jit - TTFR_eager, gain = warm_eager -
// warm_jit; +inf where the JIT never pays for itself.
double calls_to_break_even(double cost, double gain) {
  if (cost <= 0 && gain >= 0) return 1;
  if (gain <= 0) return std::numeric_limits<double>::infinity();
  return 1 + std::ceil(cost / gain - kWholeSlack);
}
}  // namespace

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
  const double n = calls_to_break_even(cost, gain);
  be.verdict = std::isfinite(n) ? "calls" : "never";
  if (std::isfinite(n)) be.calls = n;
  if (gain < 0 && cost < 0) be.ahead_until_call = 1 + std::floor(cost / gain + kWholeSlack);  // then eager catches up
  // Bootstrap the four medians independently; a break-even never reached is +inf.
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
    ns.push_back(calls_to_break_even(c, g));
  }
  std::sort(ns.begin(), ns.end());
  const auto at = [&](double q) { return ns[static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1))]; };
  const double lo = at(0.025), hi = at(0.975);
  if (std::isfinite(lo)) be.ci_low = lo;
  if (std::isfinite(hi)) be.ci_high = hi;
  return be;
}

std::string n_star_text(const BreakEven& be, double scale) {
  return be.calls ? fmt::format("{:.0f}", *be.calls * scale) : std::string("never");
}

namespace {
// An ok case of `backend` with jit's workload, n, dtype and precision: the same
// cache policy if there is one, else cold_cache; in jit's own environment
// before any other (a run across releases weighs each JIT against its own).
const CaseResult* find_match(const CaseResult& jit, const std::string& backend, const std::vector<CaseResult>& all) {
  const CaseResult* best = nullptr;
  int best_rank = 0;
  for (const auto& c : all) {
    if (c.c.backend != backend || c.c.workload != jit.c.workload || c.c.n != jit.c.n || c.c.dtype != jit.c.dtype ||
        c.c.precision != jit.c.precision || !timings_comparable(c))
      continue;
    const int policy = c.c.cache_policy == jit.c.cache_policy ? 2 : c.c.cache_policy == CachePolicy::ColdCache ? 1 : 0;
    if (policy == 0) continue;  // another policy than the JIT's, and not cold_cache: no baseline
    const int rank = policy + (c.c.env == jit.c.env ? 4 : 0);
    if (rank > best_rank) best = &c, best_rank = rank;
  }
  return best;
}
}  // namespace

Baseline eager_baseline(const CaseResult& jit, const std::vector<CaseResult>& all) {
  // The catalog's default baseline (NumPy): its name is the kind of a baseline that is it.
  const auto* fallback = Catalog::builtin().default_baseline();
  const std::string fallback_name = fallback ? fallback->name : "";
  const std::string& own = jit.c.baseline;
  // A function `jitbench measure` measured: its own baseline case runs that very function without its JIT.
  const bool measured = jit.c.workload_info && jit.c.workload_info->measured;
  if (!own.empty())
    if (const auto* c = find_match(jit, own, all))
      return {c, measured ? "eager_self" : own == fallback_name ? own : "same_framework", ""};
  Baseline b{fallback ? find_match(jit, fallback_name, all) : nullptr, fallback_name, ""};
  if (!own.empty() && b.c)
    b.note = fmt::format("no ok {} case of this workload, size, dtype and precision in the run", own);
  return b;
}

namespace {
// The first call's phases (medians over ok cold runs), their sources, and what
// no phase covers.
FirstCallAnalysis first_call_analysis(const CaseResult& c) {
  FirstCallAnalysis a;
  std::vector<std::pair<std::string, std::vector<double>>> values;
  std::vector<double> unattributed, shares;
  for (const auto& r : c.cold) {
    if (r.status != Status::Ok) continue;
    auto b = phase_breakdown(r);
    if (!b) continue;
    unattributed.push_back(b->unattributed);
    shares.push_back(b->unattributed_share);
    for (const auto& [n, v] : b->phases) {
      auto it = std::find_if(values.begin(), values.end(), [&](const auto& p) { return p.first == n; });
      if (it == values.end()) it = values.insert(values.end(), {n, {}});
      it->second.push_back(v);
    }
  }
  for (const auto& [n, xs] : values) a.phase_medians.emplace_back(n, stats::median(xs));
  if (const auto* w = c.first_worker_report()) a.phase_sources = w->phase_sources;
  a.median_s = median_of(cold_values(c, "first_call_s"));
  a.unattributed_median_s = median_of(unattributed);
  a.unattributed_share_median = median_of(shares);
  a.runs_with_phases = static_cast<int>(unattributed.size());
  return a;
}

// What the framework's own counters and jitbench's own watch of the cache
// directory say about the compile cache, over every run that reported (cold runs and warm processes).
CacheAnalysis cache_analysis(const CaseResult& c) {
  CacheAnalysis a;
  std::vector<const RunRecord*> runs;
  for (const auto& r : c.cold) runs.push_back(&r);
  for (const auto& r : c.warm) runs.push_back(&r);
  for (const auto* r : runs) {
    if (r->worker.cache.reported) {
      a.reported = true;
      a.hits += r->worker.cache.hits;
      a.misses += r->worker.cache.misses;
    }
    if (r->cache_seen.watched) {
      a.files_watched = true;
      a.entries_read += static_cast<double>(r->cache_seen.entries_read);
      a.entries_written += static_cast<double>(r->cache_seen.written());
    }
  }
  if (const auto* w = c.first_worker_report()) a.persistent = w->cache_persistent;
  return a;
}

void memory_and_variance(const CaseResult& c, CaseAnalysis& a) {
  a.rss_after_import_median = median_of(report_values(c, [](const WorkerReport& w) { return w.rss_after_import_kib; }));
  a.compile_rss_growth_median = median_of(compile_rss_growth(c));
  a.peak_rss_max = stats::max(cold_values(c, "peak_rss_kib"));
  a.process_peak_rss_max = stats::max(cold_values(c, "max_rss_kib"));
  a.device_peak_bytes = stats::max(report_values(c, [](const WorkerReport& w) { return w.device_peak_bytes; }));
  // Within one process: the median over warm processes of each one's CV.
  std::vector<double> within;
  for (const auto& run : c.warm)
    if (has_timings(run))
      if (auto cv = stats::coefficient_of_variation(run.calls_s)) within.push_back(*cv);
  a.cv_ttfr = stats::coefficient_of_variation(cold_values(c, "ttfr_s"));
  a.cv_second_call = stats::coefficient_of_variation(cold_values(c, "second_call_s"));
  a.cv_warm_between = stats::coefficient_of_variation(warm_process_medians(c));
  a.cv_warm_within = median_of(within);
}
}  // namespace

CaseAnalysis analyze_case(const CaseResult& c) {
  CaseAnalysis a;
  a.c = &c;
  const auto* w = c.first_worker_report();
  if (w) {
    a.matmul_precision = w->matmul_precision;
    a.compiled_functions = w->compiled_functions;
  }
  a.first_call = first_call_analysis(c);
  a.compiles_first_median = median_of(report_values(c, [](const WorkerReport& r) { return r.compiles_first; }));
  a.compiles_later_max = stats::max(report_values(c, [](const WorkerReport& r) { return r.compiles_later; }));
  memory_and_variance(c, a);
  a.cache = cache_analysis(c);
  a.harness_gap_median_s = median_of(cold_values(c, "harness_gap_s"));
  a.crosscheck = crosscheck(c);
  a.cold_interference = interference_share(c.cold);
  a.warm_interference = interference_share(c.warm);
  return a;
}

namespace {
std::vector<BreakEvenRow> break_even_rows(const std::vector<CaseResult>& cases) {
  std::vector<BreakEvenRow> out;
  for (const auto& c : cases) {
    // Only comparable cases: a warn case (interpreter_only, cache_not_used, ...) is never compared;
    // one whose phase split alone is in doubt (crosscheck_*) has its times measured all the same.
    if (!c.c.jit || !timings_comparable(c)) continue;
    const auto baseline = eager_baseline(c, cases);
    if (!baseline.c) continue;
    const auto tj = cold_values(c, "ttfr_s"), te = cold_values(*baseline.c, "ttfr_s");
    const auto wj = warm_values(c), we = warm_values(*baseline.c);
    if (auto be = break_even(tj, te, wj, we)) out.push_back({&c, baseline, *be});
  }
  return out;
}

std::optional<Priming> priming(const CaseResult& c) {
  if (!c.priming || !c.priming->first_call_s) return std::nullopt;
  const auto& r = *c.priming;
  Priming p{r.status, *r.first_call_s, std::nullopt, std::nullopt};
  if (auto b = phase_breakdown(r))
    for (const auto& [name, v] : b->phases)
      if (name == "cache_write" || name == "cache_save" || name == "store") p.cache_write_s = p.cache_write_s.value_or(0) + v;
  if (r.cache_seen.recorded || r.cache_seen.watched) p.entries_written = static_cast<long long>(r.cache_seen.written());
  return p;
}

// Cache modes side by side: one row per backend/workload/n/dtype/precision.
std::vector<CacheModeRow> cache_mode_rows(const std::vector<CaseResult>& cases) {
  std::vector<CacheModeRow> rows;
  for (const auto& c : cases) {
    const auto key =
        make_case_id(c.c.backend, c.c.workload, c.c.n, c.c.dtype, CachePolicy::ColdCache, c.c.precision, c.c.env);
    auto it = std::find_if(rows.begin(), rows.end(), [&](const CacheModeRow& r) { return r.key == key; });
    if (it == rows.end()) it = rows.insert(rows.end(), {key, {}});
    it->by_policy[c.c.cache_policy] = {&c, median_of(cold_values(c, "ttfr_s")),
                                       median_of(cold_values(c, "first_call_s")), priming(c)};
  }
  return rows;
}

double sum_phases(const RunRecord& r) {
  const auto b = phase_breakdown(r);
  return b ? b->sum_phases : 0.0;
}

// One row per pair x backend x n x dtype x policy x precision; one entry per variant.
std::vector<PairRow> pair_rows(const std::vector<CaseResult>& cases) {
  std::vector<PairRow> rows;
  for (const auto& c : cases) {
    if (c.c.pair.empty()) continue;
    auto it = std::find_if(rows.begin(), rows.end(), [&](const PairRow& r) {
      return r.pair == c.c.pair && r.backend == c.c.backend && r.n == c.c.n && r.dtype == c.c.dtype &&
             r.cache_policy == c.c.cache_policy && r.precision == c.c.precision;
    });
    if (it == rows.end())
      it = rows.insert(rows.end(), {c.c.pair, c.c.backend, c.c.dtype, c.c.n, c.c.cache_policy, c.c.precision, {}});
    std::vector<double> compile_s;
    for (const auto& r : c.cold)
      if (r.status == Status::Ok) compile_s.push_back(sum_phases(r));
    const auto* w = c.first_worker_report();
    it->variants.push_back({&c, median_of(cold_values(c, "first_call_s")),
                            c.status == Status::Ok ? median_of(compile_s) : std::nullopt, median_of(warm_values(c)),
                            median_of(compile_rss_growth(c)), w ? w->compiled_temp_bytes : nlohmann::json()});
  }
  return rows;
}

std::vector<AccuracyRow> accuracy_rows(const std::vector<CaseResult>& cases) {
  std::vector<AccuracyRow> out;
  for (const auto& c : cases) {
    if (!timings_comparable(c)) continue;
    const auto* w = c.first_worker_report();
    if (!w || !w->has_workload_info) continue;
    const auto record = workload_record(c.c, w->workload_record);
    if (!record || record->accuracy.empty()) continue;
    const auto& info = w->workload_info;
    const auto err = info.is_object() && info.contains(record->accuracy) ? info[record->accuracy] : nlohmann::json();
    out.push_back({&c, err, median_of(cold_values(c, "ttfr_s")), median_of(warm_values(c))});
  }
  return out;
}

std::vector<AttributionRow> attribution_rows(const std::vector<CaseResult>& cases) {
  std::vector<std::pair<std::string, std::vector<double>>> shares;
  for (const auto& c : cases) {
    if (c.status != Status::Ok) continue;
    std::vector<double> per_run;
    for (const auto& r : c.cold)
      if (r.status == Status::Ok)
        if (auto b = phase_breakdown(r); b && !b->phases.empty()) per_run.push_back(b->unattributed_share);
    if (per_run.empty()) continue;
    auto it = std::find_if(shares.begin(), shares.end(), [&](const auto& p) { return p.first == c.c.backend; });
    if (it == shares.end()) it = shares.insert(shares.end(), {c.c.backend, {}});
    it->second.push_back(*stats::median(per_run));
  }
  std::vector<AttributionRow> out;
  for (const auto& [b, xs] : shares) out.push_back({b, xs.size(), *stats::median(xs), *stats::max(xs)});
  return out;
}
}  // namespace

std::string floor_backend(const std::string& device) {
  const auto* b = Catalog::builtin().floor_of(device);
  return b ? b->name : "";
}

namespace {
std::optional<double> ok_warm_median(const CaseResult& c) {
  return timings_comparable(c) ? median_of(warm_values(c)) : std::nullopt;
}

// "cpu" or "gpu" as the worker reported its device; "" when it did not.
std::string device_of(const CaseResult& c) {
  const auto* w = c.first_worker_report();
  if (!w || w->device_platform.empty()) return "";
  return w->device_platform == "cpu" ? "cpu" : "gpu";
}

// The floor of a case: same workload, n, dtype, precision on the device's
// floor backend; the same cache policy first, then any.
const CaseResult* find_floor(const CaseResult& c, const std::string& device, const std::vector<CaseResult>& cases) {
  const std::string fb = floor_backend(device);
  const CaseResult* floor = nullptr;
  for (const auto& f : cases) {
    if (f.c.backend != fb || f.c.workload != c.c.workload || f.c.n != c.c.n || f.c.dtype != c.c.dtype ||
        f.c.precision != c.c.precision || !ok_warm_median(f))
      continue;
    if (!floor || f.c.cache_policy == c.c.cache_policy) floor = &f;
  }
  return floor;
}

// One call's work and its unit: check()'s info field that the workload's
// record names, scaled; none for a workload without a work count.
std::optional<std::pair<double, std::string>> work_count(const CaseResult& c) {
  const auto* w = c.first_worker_report();
  if (!w) return std::nullopt;
  const auto record = workload_record(c.c, w->workload_record);
  if (!record || !record->work) return std::nullopt;
  const auto& info = w->workload_info;
  if (!info.is_object() || !info.contains(record->work->field) || !info[record->work->field].is_number())
    return std::nullopt;
  const double count = info[record->work->field].get<double>() * record->work->scale;
  if (!std::isfinite(count) || count <= 0) return std::nullopt;
  return std::make_pair(count, record->work->unit);
}

// The GEMM ceiling in the format the case actually multiplied in, or why there is none.
void set_ceiling(ThroughputRow& row, const WorkloadInfo& record, const nlohmann::json& ceilings) {
  const CaseResult& c = *row.c;
  if (record.ceiling != "gemm") {
    row.ceiling_note = record.ceiling_note.empty() ? "no device ceiling applies to this workload" : record.ceiling_note;
    return;
  }
  const auto* w = c.first_worker_report();
  const std::string used = w && w->matmul_precision ? *w->matmul_precision : "";
  std::string key;
  if (c.c.dtype == "f64") key = "dgemm_gflops";
  else if (used == "tf32") key = row.device == "gpu" ? "sgemm_tf32_gflops" : "";
  else if (used.empty() || used == "ieee_fp32") key = "sgemm_gflops";
  const nlohmann::json dev =
      ceilings.is_object() && ceilings.contains(row.device) ? ceilings[row.device] : nlohmann::json();
  if (!c.environment.empty() && c.environment != "environment.json") {
    row.ceiling_note = fmt::format("the case ran in {}; the run's ceilings (environment.json) are another "
                                   "environment's", c.environment);
  } else if (key.empty()) {
    row.ceiling_note = fmt::format("no {} ceiling is measured for a {} product", row.device, used);
  } else if (!dev.is_object()) {
    row.ceiling_note = "this run's environment has no ceilings";
  } else if (!bool_or(dev, "measured", false)) {
    row.ceiling_note = "ceilings not measured: " + string_or(dev, "reason", "?");
  } else if (auto v = number_at(dev, ("/" + key).c_str()); v && *v > 0) {
    row.ceiling_name = row.device + "." + key;
    row.ceiling = *v;
    row.fraction_of_ceiling = row.achieved / *v;
  } else {
    row.ceiling_note = fmt::format("the {} ceilings have no {}", row.device, key);
  }
}
}  // namespace

std::vector<ThroughputRow> throughput_rows(const std::vector<CaseResult>& cases, const nlohmann::json& ceilings) {
  std::vector<ThroughputRow> out;
  for (const auto& c : cases) {
    const auto t = ok_warm_median(c);
    const std::string device = device_of(c);
    const auto count = work_count(c);
    if (!count || !t || *t <= 0 || device.empty()) continue;
    ThroughputRow row;
    row.c = &c;
    row.device = device;
    row.unit = count->second + "/s";
    row.warm_median_s = *t;
    row.achieved = count->first / *t;
    if (const CaseResult* floor = find_floor(c, device, cases)) {
      const auto floor_count = work_count(*floor);
      if (floor_count && floor_count->second == count->second) {
        row.floor = floor;
        row.floor_achieved = floor_count->first / *ok_warm_median(*floor);
      }
    }
    if (row.floor_achieved) {
      row.fraction_of_floor = row.achieved / *row.floor_achieved;
      row.crosses_environments = row.floor->environment != c.environment;
    } else {
      row.floor_note = fmt::format("no ok {} case of {}_{}_{} at {} precision in this run", floor_backend(device),
                                   c.c.workload, c.c.n, c.c.dtype, to_string(c.c.precision));
    }
    set_ceiling(row, *workload_record(c.c, c.first_worker_report()->workload_record), ceilings);
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<LoopRow> loop_rows(const std::vector<CaseResult>& cases) {
  std::vector<LoopRow> out;
  for (const auto& c : cases) {
    if (c.c.cache_policy != CachePolicy::ColdCache || !timings_comparable(c)) continue;
    const auto* w = c.first_worker_report();
    const auto record = workload_record(c.c, w ? w->workload_record : nlohmann::json());
    if (!record || record->loop_step.empty() || record->loop_steps < 1) continue;
    std::vector<double> startup, compile;
    for (const auto& r : c.cold) {
      if (r.status != Status::Ok) continue;
      const auto process = r.process_ttfr_s(), ttfr = r.ttfr_s();
      const auto first = metric(r, "first_call_s");
      if (!process || !ttfr || !first) continue;
      startup.push_back(*process - *first);  // interpreter start, import, setup
      compile.push_back(sum_phases(r));
    }
    const auto s = median_of(startup), k = median_of(compile), f = median_of(cold_values(c, "first_call_s"));
    const auto warm = median_of(warm_values(c));
    if (!s || !k || !f || !warm) continue;
    LoopRow row{&c, record->loop_step, record->loop_steps, *s, std::min(*k, *f), *f, *warm, {}};
    for (const long steps : {10L, 100L, 1000L}) {
      LoopCost cost;
      cost.steps = steps;
      cost.calls = (steps + row.steps_per_call - 1) / row.steps_per_call;
      cost.startup_s = row.startup_s;
      cost.compile_s = row.compile_s;
      cost.execute_s = (row.first_call_s - row.compile_s) + static_cast<double>(cost.calls - 1) * row.warm_call_s;
      cost.total_s = cost.startup_s + cost.compile_s + cost.execute_s;
      cost.dominant = cost.startup_s >= cost.compile_s && cost.startup_s >= cost.execute_s ? "start-up"
                      : cost.compile_s >= cost.execute_s                                   ? "compile"
                                                                                           : "execution";
      row.costs.push_back(cost);
    }
    out.push_back(std::move(row));
  }
  return out;
}

Analysis analyze(const std::vector<CaseResult>& cases, const nlohmann::json& ceilings) {
  Analysis a;
  a.loops = loop_rows(cases);
  for (const auto& c : cases) a.cases.push_back(analyze_case(c));
  a.throughput = throughput_rows(cases, ceilings);
  a.break_even = break_even_rows(cases);
  a.cache_modes = cache_mode_rows(cases);
  a.pairs = pair_rows(cases);
  a.accuracy = accuracy_rows(cases);
  a.attribution = attribution_rows(cases);
  return a;
}

}  // namespace jitbench
