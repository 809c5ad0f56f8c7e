#include "export/json/analysis_json.h"

#include "export/docs/interference_text.h"
#include "export/json/json_util.h"

namespace jitbench {
using nlohmann::json;

namespace {
json first_call_json(const FirstCallAnalysis& f) {
  json phases = json::object(), sources = json::object();
  for (const auto& [n, v] : f.phase_medians) phases[n] = number_or_null(v);
  for (const auto& [n, s] : f.phase_sources) sources[n] = s;
  return {{"median_s", number_or_null(f.median_s)},
          {"phases_median_s", phases},
          {"phase_sources", sources},
          {"unattributed_median_s", number_or_null(f.unattributed_median_s)},
          {"unattributed_share_median", number_or_null(f.unattributed_share_median)},
          {"runs_with_phases", f.runs_with_phases}};
}

json cache_json(const CacheAnalysis& c) {
  return {{"persistent", c.persistent ? json(*c.persistent) : json(nullptr)},
          {"reported", c.reported},
          {"hits", c.hits},
          {"misses", c.misses},
          {"files_watched", c.files_watched},
          {"entries_read", c.entries_read},
          {"entries_written", c.entries_written}};
}

json crosscheck_json(const std::optional<Crosscheck>& x) {
  if (!x) return nullptr;
  if (x->status != Status::Ok)
    return {{"status", to_string(x->status)}, {"reason", to_string(x->reason)}, {"agrees", nullptr},
            {"steps", json::object()}};
  json steps = json::object();
  for (const auto& s : x->steps) steps[s.step] = {{"event_median_s", s.event_median_s}, {"aot_s", s.aot_s},
                                                  {"agrees", s.agrees}};
  return {{"status", "ok"}, {"reason", nullptr}, {"agrees", x->agrees ? json(*x->agrees) : json(nullptr)},
          {"interfered", x->interfered}, {"steps", steps}};
}

json share_json(const InterferenceShare& s) {
  return {{"runs", s.runs},
          {"reported", s.reported},
          {"interfered", s.interfered},
          {"grade", grade_word(s)},
          {"others_cpus_median", number_or_null(s.others_cpus_median())},
          {"quiet", s.quiet},
          {"busy", s.busy},
          {"contended", s.contended}};
}

json case_analysis_json(const CaseAnalysis& a) {
  const auto& c = *a.c;
  return {
      {"case", c.c.id},
      {"backend", c.c.backend},
      {"cache_policy", to_string(c.c.cache_policy)},
      {"precision", to_string(c.c.precision)},
      {"matmul_precision", a.matmul_precision ? json(*a.matmul_precision) : json(nullptr)},
      {"status", to_string(c.status)},
      {"first_call", first_call_json(a.first_call)},
      {"compiles",
       {{"first_call_median", number_or_null(a.compiles_first_median)},
        {"later_calls_max", number_or_null(a.compiles_later_max)},
        {"first_call_by_function", a.compiled_functions.is_null() ? json(nullptr) : a.compiled_functions}}},
      {"memory",
       {{"rss_after_import_kib_median", number_or_null(a.rss_after_import_median)},
        {"compile_rss_growth_kib_median", number_or_null(a.compile_rss_growth_median)},
        {"peak_rss_kib_max", number_or_null(a.process_peak_rss_max)},
        {"workload_peak_rss_kib_max", number_or_null(a.peak_rss_max)},
        {"device_peak_bytes", a.device_peak_bytes ? json(*a.device_peak_bytes) : json("not reported")}}},
      {"cache", cache_json(a.cache)},
      {"harness_gap_median_s", number_or_null(a.harness_gap_median_s)},
      {"crosscheck", crosscheck_json(a.crosscheck)},
      {"interference", {{"cold", share_json(a.cold_interference)}, {"warm", share_json(a.warm_interference)}}},
      {"variance",
       {{"between_process_cv_ttfr", number_or_null(a.cv_ttfr)},
        {"between_process_cv_second_call", number_or_null(a.cv_second_call)},
        {"between_process_cv_warm", number_or_null(a.cv_warm_between)},
        {"within_process_cv_warm", number_or_null(a.cv_warm_within)}}},
  };
}

// A count of calls (N*, its interval): a JSON integer.
json whole_or_null(const std::optional<double>& v) {
  return v ? json(static_cast<long long>(*v)) : json(nullptr);
}

json break_even_json(const BreakEvenRow& r) {
  const auto& be = r.be;
  return {{"jit_case", r.jit->c.id},
          {"eager_case", r.baseline.c->c.id},
          {"baseline", {{"kind", r.baseline.kind}, {"note", text_or_null(r.baseline.note)}}},
          {"verdict", be.verdict},
          {"calls", whole_or_null(be.calls)},
          {"calls_ci95", {whole_or_null(be.ci_low), whole_or_null(be.ci_high)}},
          {"ahead_until_call", whole_or_null(be.ahead_until_call)},
          {"ttfr_jit_s", be.ttfr_jit},
          {"ttfr_eager_s", be.ttfr_eager},
          {"warm_jit_s", be.warm_jit},
          {"warm_eager_s", be.warm_eager}};
}

json priming_json(const std::optional<Priming>& p) {
  if (!p) return nullptr;
  return {{"status", to_string(p->status)},
          {"first_call_s", p->first_call_s},
          {"cache_write_s", number_or_null(p->cache_write_s)},
          {"entries_written", p->entries_written ? json(*p->entries_written) : json(nullptr)}};
}

json cache_mode_json(const CacheModeRow& row) {
  json j = {{"key", row.key}};
  for (const auto& [policy, e] : row.by_policy)
    j[std::string(to_string(policy))] = {{"case", e.c->c.id},
                                         {"status", to_string(e.c->status)},
                                         {"reason", text_or_null(to_string(e.c->reason))},
                                         {"ttfr_median_s", number_or_null(e.ttfr_median_s)},
                                         {"first_call_median_s", number_or_null(e.first_call_median_s)},
                                         {"priming", priming_json(e.priming)}};
  return j;
}

json pair_json(const PairRow& row) {
  json variants = json::array();
  for (const auto& v : row.variants)
    variants.push_back({{"workload", v.c->c.workload},
                        {"case", v.c->c.id},
                        {"status", to_string(v.c->status)},
                        {"first_call_median_s", number_or_null(v.first_call_median_s)},
                        {"compile_median_s", number_or_null(v.compile_median_s)},
                        {"warm_median_s", number_or_null(v.warm_median_s)},
                        {"first_call_rss_growth_kib_median", number_or_null(v.rss_growth_median_kib)},
                        {"compiled_temp_bytes", v.compiled_temp_bytes}});
  return {{"pair", row.pair},
          {"backend", row.backend},
          {"n", row.n},
          {"dtype", row.dtype},
          {"cache_policy", to_string(row.cache_policy)},
          {"precision", to_string(row.precision)},
          {"variants", variants}};
}

json accuracy_json(const AccuracyRow& a) {
  const auto& c = a.c->c;
  return {{"case", c.id}, {"backend", c.backend}, {"n", c.n}, {"dtype", c.dtype},
          {"cache_policy", to_string(c.cache_policy)}, {"abs_error", a.abs_error},
          {"ttfr_median_s", number_or_null(a.ttfr_median_s)}, {"warm_median_s", number_or_null(a.warm_median_s)}};
}
json throughput_json(const ThroughputRow& r) {
  const auto& c = r.c->c;
  json floor = nullptr, ceiling = nullptr;
  if (r.floor)
    floor = {{"case", r.floor->c.id}, {"achieved", *r.floor_achieved}, {"fraction", *r.fraction_of_floor}};
  if (r.ceiling)
    ceiling = {{"name", r.ceiling_name}, {"value", *r.ceiling}, {"fraction", *r.fraction_of_ceiling}};
  return {{"case", c.id}, {"backend", c.backend}, {"workload", c.workload}, {"device", r.device}, {"unit", r.unit},
          {"warm_median_s", r.warm_median_s}, {"achieved", r.achieved},
          {"floor", floor}, {"floor_note", r.floor_note}, {"ceiling", ceiling}, {"ceiling_note", r.ceiling_note},
          {"crosses_environments", r.crosses_environments}};
}
json loop_json(const LoopRow& r) {
  const auto& c = r.c->c;
  json costs = json::array();
  for (const auto& k : r.costs)
    costs.push_back({{"steps", k.steps}, {"calls", k.calls}, {"total_s", k.total_s}, {"startup_s", k.startup_s},
                     {"compile_s", k.compile_s}, {"execute_s", k.execute_s}, {"dominant", k.dominant}});
  return {{"case", c.id},           {"backend", c.backend},          {"workload", c.workload},
          {"step", r.step},         {"steps_per_call", r.steps_per_call}, {"startup_s", r.startup_s},
          {"compile_s", r.compile_s}, {"first_call_s", r.first_call_s}, {"warm_call_s", r.warm_call_s},
          {"costs", costs}};
}
}  // namespace

json release_json(const compare::ReleaseRow& row) {
  json entries = json::array();
  for (const auto& e : row.entries) {
    json metrics = json::object();
    for (const auto& m : row.metrics) {
      const auto v = e.values.find(m);
      // Instruction counts are judged by their spread, with no test and no bootstrap CI: summary.md's
      // Releases table shows them, each case file's counts holds them; this section keeps the times.
      if (v == e.values.end() || compare::metric_info(m).kind == compare::MetricKind::Instructions) continue;
      json step = nullptr;
      if (const auto s = e.step.find(m); s != e.step.end())
        step = {{"ratio", s->second.ratio}, {"ci95", {s->second.lo, s->second.hi}}, {"p", s->second.p},
                {"testable", s->second.testable}, {"verdict", s->second.verdict}};
      metrics[m] = {{"median", v->second[0]}, {"median_ci95", {v->second[1], v->second[2]}}, {"step", step}};
    }
    entries.push_back({{"environment", e.env}, {"case", e.c->c.id}, {"status", to_string(e.c->status)},
                       {"metrics", metrics}});
  }
  std::vector<std::string> timed;
  for (const auto& m : row.metrics)
    if (compare::metric_info(m).kind != compare::MetricKind::Instructions) timed.push_back(m);
  return {{"key", row.key}, {"metrics", timed}, {"environments", entries}};
}

json analysis_json(const Analysis& a, const std::vector<compare::ReleaseRow>& releases) {
  json cases = json::array(), be = json::array(), modes = json::array(), pairs = json::array(),
       accuracy = json::array(), attribution = json::array(), throughput = json::array();
  for (const auto& r : a.throughput) throughput.push_back(throughput_json(r));
  for (const auto& c : a.cases) cases.push_back(case_analysis_json(c));
  for (const auto& r : a.break_even) be.push_back(break_even_json(r));
  for (const auto& r : a.cache_modes) modes.push_back(cache_mode_json(r));
  for (const auto& r : a.pairs) pairs.push_back(pair_json(r));
  for (const auto& r : a.accuracy) accuracy.push_back(accuracy_json(r));
  for (const auto& r : a.attribution)
    attribution.push_back({{"backend", r.backend}, {"cases", r.cases}, {"unattributed_share_median", r.share_median},
                           {"unattributed_share_max", r.share_max}});
  json out = {{"schema_version", kAnalysisSchema}, {"attribution", attribution}, {"cases", cases},
              {"break_even", be}, {"cache_modes", modes}, {"pairs", pairs}, {"accuracy", accuracy},
              {"throughput", throughput}};
  if (!a.loops.empty()) {
    out["loops"] = json::array();
    for (const auto& r : a.loops) out["loops"].push_back(loop_json(r));
  }
  if (!releases.empty()) {
    out["releases"] = json::array();
    for (const auto& r : releases) out["releases"].push_back(release_json(r));
  }
  return out;
}

}  // namespace jitbench
