#include "export/docs/summary_md.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "export/docs/case_names.h"
#include "export/docs/compact_table.h"
#include "export/sections/counts.h"
#include "export/docs/figure_data.h"
#include "export/docs/glance_table.h"
#include "export/docs/interference_text.h"
#include "export/docs/anatomy_delta_text.h"
#include "export/docs/anatomy_table.h"
#include "export/sections/sampling.h"
#include "export/sections/verification.h"
#include "export/sections/section.h"
#include "export/sections/throughput.h"
#include "report/format.h"
#include "report/table.h"
#include "stats/sequential.h"
#include "stats/stats.h"

namespace jitbench {
namespace {

std::string median_of(const std::vector<double>& xs) { return format_seconds(stats::median(xs)); }
std::string kib(const std::optional<double>& v) { return v ? fmt::format("{:.1f} MiB", *v / 1024.0) : "—"; }
std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : "—"; }

// A section: heading and intro, then its table for a screen, or nothing when it has no rows.
std::string section(const std::string& heading_and_intro, const Table& t) {
  return t.empty() ? "" : heading_and_intro + compact_markdown(t);
}

// One piece of work's cases: the workload, size and dtype every row shares.
std::string workload_key(const Case& c) { return fmt::format("{}_{}_{}", c.workload, c.n, c.dtype); }

std::string precision_of(const CaseResult& c) {
  const auto* w = c.first_worker_report();
  return w && w->matmul_precision ? *w->matmul_precision : "—";
}

// The arithmetic a reader assumes from the dtype (IEEE fp32 for f32, fp64 for f64), or none reported.
bool plain_precision(const CaseResult& c) {
  const auto p = precision_of(c);
  return p == "—" || p == (c.c.dtype == "f64" ? "fp64" : "ieee_fp32");
}

std::string workload_table(const std::vector<const CaseResult*>& rows) {
  const bool all_ok = std::all_of(rows.begin(), rows.end(), [](const auto* c) { return c->status == Status::Ok; });
  const bool plain = std::all_of(rows.begin(), rows.end(), [](const auto* c) { return plain_precision(*c); });
  const bool one_precision = plain || std::all_of(rows.begin(), rows.end(), [&](const auto* c) {
    return precision_of(*c) == precision_of(*rows.front()) || precision_of(*c) == "—";
  });
  Table t{{"Backend", "Status", "Matmul precision", "Cold TTFR", "n, interval or range", "Process TTFR", "Import",
           "First call", "Warm call"},
          {}};
  for (const auto* c : rows) {
    const auto ttfr = cold_values(*c, "ttfr_s");
    t.add({case_row_md(c->c), all_ok ? "" : std::string(to_string(c->status)),
           one_precision ? "" : precision_of(*c), median_of(ttfr), spread_cell(ttfr),
           median_of(cold_values(*c, "process_ttfr_s")), median_of(cold_values(*c, "import_s")),
           median_of(cold_values(*c, "first_call_s")), median_of(warm_values(*c))});
  }
  const auto p = precision_of(*rows.front());
  return (one_precision && !plain ? fmt::format("Matmul precision: {}.\n\n", md_cell(p)) : "") +
         compact_markdown(t, {"n, interval or range"});
}

// One section per piece of work, in the order the run measured them.
std::string workload_sections(const std::vector<CaseResult>& cases) {
  std::vector<std::pair<std::string, std::vector<const CaseResult*>>> groups;
  for (const auto& c : cases) {
    const auto key = workload_key(c.c);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(&c);
  }
  std::string md;
  for (const auto& [key, rows] : groups) md += fmt::format("\n## {}\n\n", work_title_md(rows.front()->c)) + workload_table(rows);
  return md;
}

std::string notes(const std::vector<CaseResult>& cases) {
  std::string noisy;
  int n_noisy = 0;
  for (const auto& c : cases) {
    auto cv = stats::coefficient_of_variation(cold_values(c, "ttfr_s"));
    if (cv && *cv > 0.10) noisy += fmt::format("{}{} {:.0f}%", n_noisy++ ? ", " : "", case_name_md(c.c), *cv * 100);
  }
  // The same settings are inherited by every case of one run; a merged run may differ.
  std::set<std::tuple<std::string, std::string, std::string>> removed;
  for (const auto& c : cases)
    for (const auto& f : c.inherited_cache_settings) removed.insert({f.variable, f.value, f.action});
  std::string md;
  if (!removed.empty()) {
    md += "\n## Compile-cache settings kept from the workers\n\nFound in the environment jitbench was started "
          "with; a cache outside the case's own directory would have served the cold runs:\n\n";
    for (const auto& [var, value, action] : removed)
      md += fmt::format("- `{}={}`: {}\n", md_cell(var), md_cell(value), md_cell(action));
  }
  if (n_noisy)
    md += fmt::format("\n## High variance\n\nCold TTFR varies by more than 10% between processes (coefficient of "
                      "variation) in {} {}: {}.\n", n_noisy, n_noisy == 1 ? "case" : "cases", noisy);
  return md;
}

// Why a first call has no compile phases: the framework reported none, or it
// counted zero compiles -- nothing to compile (ahead of time, e.g. native),
// a program loaded from the persistent cache, or one compiled earlier in the
// same process.
std::string no_phases_label(const CaseAnalysis& a) {
  if (!a.compiles_first_median) return "(no compile reported)";
  if (a.c->c.cache_policy == CachePolicy::WarmCache) return "(no compile: loaded from the cache)";
  if (a.c->c.cache_policy == CachePolicy::WarmProcess) return "(no compile: compiled earlier in this process)";
  return "(nothing compiled at run time)";
}

std::string crosscheck_cell(const CaseAnalysis& a) {
  if (!a.crosscheck) return "—";
  if (!a.crosscheck->agrees) {
    const auto r = to_string(a.crosscheck->reason);
    return a.crosscheck->status != Status::Ok ? md_cell(r) : "—";
  }
  if (*a.crosscheck->agrees) return "agrees";
  return a.crosscheck->interfered ? "disagrees (interfered: not a warning)" : "**disagrees**";
}

// "4: jit(fit), jit(stack) ×2, ..." -- which functions the first call compiled.
std::string compiles_cell(const CaseAnalysis& a) {
  if (!a.compiles_first_median) return "—";
  std::string out = fmt::format("{:g}", *a.compiles_first_median);
  const auto& by = a.compiled_functions;
  if (!by.is_object() || by.empty()) return out;
  if (by.size() > 1) return out + fmt::format(" in {} functions", by.size());
  std::string names;
  for (const auto& [name, k] : by.items())
    names += fmt::format("{}{}{}", names.empty() ? "" : ", ", md_cell(name),
                         k.is_number() && k.get<double>() > 1 ? fmt::format(" ×{:g}", k.get<double>()) : "");
  return out + ": " + names;
}

// The phases one backend reports, in the framework's order, over its cases.
std::vector<std::string> backend_phases(const std::vector<const CaseAnalysis*>& rows) {
  std::vector<std::string> names;
  for (const auto* a : rows)
    for (const auto& [name, v] : a->first_call.phase_medians)
      if (v && *v > 0 && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

std::string backend_phases_table(const std::vector<const CaseAnalysis*>& rows) {
  const auto names = backend_phases(rows);
  Table t{{"Work", "First call"}, {}};
  if (names.empty()) t.columns.push_back("Phases");
  for (const auto& n : names) t.columns.push_back(n);
  for (const char* h : {"Unattributed", "Compiles", "Cross-check"}) t.columns.push_back(h);
  for (const auto* a : rows) {
    const auto& fc = a->first_call;
    const auto& c = a->c->c;  // a measured function: what the user named, not its workload's id
    std::vector<std::string> cells{c.workload_info && c.workload_info->measured ? case_name_md(c) : md_code(work_of(c)),
                                   format_seconds(fc.median_s)};
    bool any = false;
    for (const auto& n : names) {
      const auto it = std::find_if(fc.phase_medians.begin(), fc.phase_medians.end(), [&](const auto& p) { return p.first == n; });
      const bool has = it != fc.phase_medians.end() && it->second && *it->second > 0;
      any = any || has;
      cells.push_back(has ? format_seconds(*it->second) : "—");
    }
    if (names.empty()) cells.push_back(no_phases_label(*a));
    else if (!any) cells[2] = no_phases_label(*a);
    const auto& share = fc.unattributed_share_median;
    cells.push_back(fmt::format("{} ({})", format_seconds(fc.unattributed_median_s),
                                share ? fmt::format("{:.0f}%", *share * 100) : "—"));
    cells.push_back(compiles_cell(*a));
    cells.push_back(crosscheck_cell(*a));
    t.add(std::move(cells));
  }
  return compact_markdown(t);
}

std::string phases_tables(const Analysis& analysis) {
  std::vector<std::pair<std::string, std::vector<const CaseAnalysis*>>> groups;
  for (const auto& a : analysis.cases) {
    if (a.first_call.runs_with_phases == 0) continue;
    const auto& b = a.c->c.backend;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == b; });
    if (it == groups.end()) it = groups.insert(groups.end(), {b, {}});
    it->second.push_back(&a);
  }
  std::string md;
  for (const auto& [backend, rows] : groups) md += fmt::format("\n### `{}`\n\n", backend) + backend_phases_table(rows);
  return md;
}

std::string attribution_section(const Analysis& analysis) {
  Table t{{"Backend", "Cases", "Unattributed share (median)", "(max)"}, {}};
  for (const auto& a : analysis.attribution)
    t.add({md_code(a.backend), std::to_string(a.cases), fmt::format("{:.0f}%", a.share_median * 100),
           fmt::format("{:.0f}%", a.share_max * 100)});
  return section("\n### How much of the first call the phases explain, per backend\n\n", t);
}

// Each phase's source once, with the backends it is theirs (jax_jit_cpu and
// jax_eager_cpu read the same events: one line, not two).
std::string phase_sources(const Analysis& analysis) {
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> found;
  for (const auto& a : analysis.cases)
    for (const auto& [name, src] : a.first_call.phase_sources) {
      if (src.empty()) continue;
      const std::pair<std::string, std::string> key{name, src};
      auto it = std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.first == key; });
      if (it == found.end()) it = found.insert(found.end(), {key, {}});
      const auto backend = md_code(a.c->c.backend);
      if (std::find(it->second.begin(), it->second.end(), backend) == it->second.end()) it->second.push_back(backend);
    }
  std::string out;
  for (const auto& [key, backends] : found) {
    std::string who;
    for (const auto& b : backends) who += (who.empty() ? "" : ", ") + b;
    out += fmt::format("- {} ({}): {}\n", key.first, who, md_cell(key.second));
  }
  return out;
}

std::string phases_section(const Analysis& analysis) {
  const auto tables = phases_tables(analysis);
  if (tables.empty()) return "";
  const auto sources = phase_sources(analysis);  // none where no backend reported a phase (numpy alone)
  return "\n## Phases of the first call (medians)\n" + tables + (sources.empty() ? "" : "\nPhase sources:\n\n" + sources) +
         attribution_section(analysis);
}

std::string priming_cell(const CacheModeRow& row) {
  const auto it = row.by_policy.find(CachePolicy::WarmCache);
  if (it == row.by_policy.end() || !it->second.priming) return "—";
  const auto& p = *it->second.priming;
  return fmt::format("first call {}, of which writing {}", format_seconds(p.first_call_s),
                     p.cache_write_s ? format_seconds(*p.cache_write_s) : "not reported");
}

std::string cache_mode_cell(const CacheModeRow& row, CachePolicy policy) {
  const auto it = row.by_policy.find(policy);
  if (it == row.by_policy.end()) return "—";
  const auto& e = it->second;
  if (timings_comparable(*e.c))
    return fmt::format("{} (first call {})", format_seconds(e.ttfr_median_s), format_seconds(e.first_call_median_s));
  return fmt::format("{}: {}", to_string(e.c->status), to_string(e.c->reason));
}

std::string cache_modes_section(const Analysis& analysis) {
  constexpr CachePolicy kModes[] = {CachePolicy::ColdCache, CachePolicy::WarmCache, CachePolicy::WarmProcess};
  Table t{{"Case", "cold_cache", "warm_cache", "warm_process", "Filling the cache (priming run)"}, {}};
  for (const auto& row : analysis.cache_modes) {
    if (row.by_policy.size() < 2) continue;
    std::vector<std::string> cells{md_code(row.key)};
    for (auto m : kModes) cells.push_back(cache_mode_cell(row, m));
    cells.push_back(priming_cell(row));
    t.add(std::move(cells));
  }
  return section("\n## Cache modes: time to first result (median)\n\n", t);
}

// Whether both sides of a comparison have enough cold runs for an interval (the Sampling section's rule).
bool interval_supported(const CaseResult& a, const CaseResult& b) {
  const auto n = std::min(cold_values(a, "ttfr_s").size(), cold_values(b, "ttfr_s").size());
  return stats::median_interval_possible(n, stats::kReportConfidence);
}

std::string calls_ci(const BreakEven& be, bool interval, double k) {
  if (!interval) return "";  // the section's intro says why
  return fmt::format(" [{} – {}]", be.ci_low ? fmt::format("{:.0f}", *be.ci_low * k) : "—",
                     be.ci_high ? fmt::format("{:.0f}", *be.ci_high * k) : "never");
}

std::string calls_cell(const BreakEven& be, bool interval) { return n_star_text(be) + calls_ci(be, interval, 1); }

std::string break_even_section(const Analysis& analysis) {
  Table t{{"JIT case", "Baseline", "Why this baseline", "N* (calls)"}, {}};
  std::string leads;
  for (const auto& r : analysis.break_even) {
    std::string kind = r.baseline.kind == "same_framework" ? "same framework, same device"
                       : r.baseline.kind == "eager_self"   ? "the same function without its JIT"
                       : r.baseline.note.empty() ? "—"  // the catalog's baseline: nothing to say
                       : md_code(r.baseline.kind) + " (" + md_cell(r.baseline.note) + ")";
    if (r.jit->environment != r.baseline.c->environment)
      kind += fmt::format(" ⚠ crosses environments ({} vs {})", r.jit->environment, r.baseline.c->environment);
    t.add({case_name_md(r.jit->c), case_row_md(r.baseline.c->c), kind,
           calls_cell(r.be, interval_supported(*r.jit, *r.baseline.c))});
    if (r.be.ahead_until_call)
      leads += fmt::format("- {}: sooner to its first result but slower warm: no slower in all through call {:.0f}, "
                           "then the eager function catches up\n", case_name_md(r.jit->c), *r.be.ahead_until_call);
  }
  return section("\n## Break-even against the eager baseline\n\n", t) + (leads.empty() ? "" : "\n" + leads);
}

std::string bytes(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.2f} MiB", v.get<double>() / 1048576.0) : "—";
}

std::string pairs_section(const Analysis& analysis) {
  Table t{{"Pair", "Backend", "n", "dtype", "Variant", "First call", "Compile", "Warm call", "XLA temp", "RSS growth"}, {}};
  for (const auto& row : analysis.pairs)
    for (const auto& v : row.variants)
      t.add({row.pair, row.backend, std::to_string(row.n), row.dtype, md_code(v.c->c.workload),
             format_seconds(v.first_call_median_s), format_seconds(v.compile_median_s), format_seconds(v.warm_median_s),
             bytes(v.compiled_temp_bytes), kib(v.rss_growth_median_kib)});
  return section("\n## Transform pairs\n\n", t);
}

std::string accuracy_section(const Analysis& analysis) {
  Table t{{"Case", "Backend", "n", "Abs. error", "Cold TTFR", "Warm call"}, {}};
  for (const auto& a : analysis.accuracy)
    t.add({md_code(a.c->c.id), a.c->c.backend, std::to_string(a.c->c.n),
           a.abs_error.is_number() ? fmt::format("{:.2e}", a.abs_error.get<double>()) : "—", format_seconds(a.ttfr_median_s),
           format_seconds(a.warm_median_s)});
  return section("\n## Accuracy against time\n\n", t);
}

// N* of a JIT case in steps: its calls (the first included) times the steps a call runs.
std::string steps_cell(const LoopRow& row, const Analysis& analysis) {
  for (const auto& r : analysis.break_even) {
    if (r.jit != row.c) continue;
    const auto& be = r.be;
    if (!be.calls) return n_star_text(be);
    const double k = static_cast<double>(row.steps_per_call);
    return fmt::format("{}{} vs `{}`", n_star_text(be, k), calls_ci(be, interval_supported(*r.jit, *r.baseline.c), k),
                       r.baseline.c->c.backend);
  }
  return row.c->c.jit ? "— (no baseline in the run)" : "— (not a JIT)";
}

std::string loops_section(const Analysis& analysis) {
  Table t{{"Case", "Step", "Start-up", "Compile", "First call", "Warm step", "N* steps", "10 steps",
           "100 steps", "1000 steps"},
          {}};
  for (const auto& row : analysis.loops) {
    std::vector<std::string> cells{md_code(row.c->c.id), row.step, format_seconds(row.startup_s),
                                   format_seconds(row.compile_s), format_seconds(row.first_call_s),
                                   format_seconds(row.warm_call_s / static_cast<double>(row.steps_per_call)),
                                   steps_cell(row, analysis)};
    for (const auto& k : row.costs) cells.push_back(format_seconds(k.total_s) + " · " + k.dominant);
    t.add(std::move(cells));
  }
  return section("\n## Short loops: what a loop of N steps costs in a fresh process\n\n", t);
}

std::string memory_variance_section(const Analysis& analysis) {
  Table t{{"Case", "RSS at import", "RSS growth", "Peak RSS", "Process peak (wait4)", "Device peak", "CV cold",
           "CV warm"},
          {}};
  for (const auto& a : analysis.cases) {
    if (a.c->status == Status::Warn && !a.peak_rss_max && !a.process_peak_rss_max) continue;
    t.add({case_name_md(a.c->c), kib(a.rss_after_import_median), kib(a.compile_rss_growth_median), kib(a.peak_rss_max),
           kib(a.process_peak_rss_max),
           a.device_peak_bytes ? fmt::format("{:.1f} MiB", *a.device_peak_bytes / 1048576.0) : "—",
           pct(a.cv_ttfr), pct(a.cv_warm_within)});
  }
  return section("\n## Memory and variance\n\n", t);
}
}  // namespace

std::string environment_line(const EnvironmentInfo& env) {
  std::string pkgs;
  for (const auto& [k, v] : env.packages) pkgs += fmt::format("{}{} {}", pkgs.empty() ? "" : ", ", k, v);
  return fmt::format("{} · {} logical cores · {} · Python {} · {}", env.cpu_model, env.logical_cores, env.os,
                     env.python_version, pkgs);
}

namespace {
// A merged run whose shards ran on different machines or software: which
// environment file each shard's cases point to, and what each one is.
// A metric's short name in a releases table.
std::string metric_label(const std::string& m) {
  if (const auto phase = compare::instructions_phase(m); !phase.empty()) return "Instructions: " + phase;
  if (m == "cold_import_s") return "Import";
  if (m == "cold_first_call_s") return "First call";
  if (m == "cold_ttfr_s") return "TTFR";
  if (m == "warm_call_s") return "Warm call";
  return m.substr(6, m.size() - 8);  // phase_<name>_s
}

// An instruction count: its median, and the step's ratio with the processes'
// spread as its interval (always: no CI rule), **bold** where compare calls
// it a change (compare/metrics.h), † with fewer than two counting processes a side.
std::string release_count_cell(const compare::ReleaseEntry& e, const std::string& m, double median, bool& untested) {
  std::string cell = format_count(median);
  if (const auto s = e.step.find(m); s != e.step.end()) {
    const auto& r = s->second;
    untested = untested || !r.testable;
    cell += fmt::format(" ({}{:.4f}× [{:.4f}–{:.4f}]{}{})", r.significant ? "**" : "", r.ratio, r.lo, r.hi,
                        r.significant ? ", " + r.verdict + "**" : "", r.testable ? "" : "†");
  }
  return cell;
}

// "73.86 ms (0.87× [0.56–1.59])": the step's ratio, its 95% CI only where both
// sides have the runs the Sampling section's rule asks for, † where the test
// cannot reach significance with so few (said once below the table).
std::string release_cell(const compare::ReleaseEntry& e, const std::string& m, bool& untested) {
  const auto v = e.values.find(m);
  if (v == e.values.end()) return "—";
  if (compare::metric_info(m).rule == compare::MetricRule::Spread) return release_count_cell(e, m, v->second[0], untested);
  std::string cell = format_seconds(v->second[0]);
  if (const auto s = e.step.find(m); s != e.step.end()) {
    const auto& r = s->second;
    const bool interval = stats::median_interval_possible(std::min(r.n_base, r.n_new), stats::kReportConfidence);
    untested = untested || !r.testable;
    cell += fmt::format(" ({}{}×{}{}{})", r.significant ? "**" : "", format_ratio(r.ratio),
                        interval ? fmt::format(" [{}–{}]", format_ratio(r.lo), format_ratio(r.hi)) : "",
                        r.significant ? (r.ratio > 1 ? ", slower**" : ", faster**") : "", r.testable ? "" : "†");
  }
  return cell;
}

// Per environment with an anatomy on both sides of its step: the sub-phases
// that moved most from the environment above, as one line.
std::string release_anatomy_lines(const compare::ReleaseRow& row) {
  std::string md;
  for (const auto& e : row.entries)
    if (!e.anatomy_step.empty()) md += fmt::format("- {}: {}\n", md_code(e.env), anatomy_delta_line(e.anatomy_step));
  if (md.empty()) return "";
  return "\nInside the compile, against the environment above (anatomy processes' medians; ratio with its 95% CI "
         "where each side has " + std::to_string(stats::min_values_for_interval(stats::kReportConfidence)) +
         " or more processes, else each side's n and range):\n\n" + md;
}

// The † footnote: the counts below which the two-sided Mann–Whitney test
// cannot reach the release alpha (its smallest p is 2 / C(n + m, n)).
std::string untested_footnote() {
  static_assert(compare::kReleaseAlpha == 0.05, "the counts in this footnote are those of alpha 0.05");
  return fmt::format("\n† too few processes for the test to reach p < {:g} with these two counts (sides of equal "
                     "count need 4 each; 3 against 5 will do, 3 against 4 will not); for an instruction count, "
                     "fewer than {} counting processes a side.\n",
                     compare::kReleaseAlpha, compare::kSpreadMinRuns);
}

std::string releases_section(const std::vector<compare::ReleaseRow>& rows) {
  if (rows.empty()) return "";
  std::string md = "\n## Releases\n";
  for (const auto& row : rows) {
    Table t{{"Environment", "Status"}, {}};
    for (const auto& m : row.metrics) t.columns.push_back(metric_label(m));
    bool untested = false;
    for (const auto& e : row.entries) {
      std::vector<std::string> cells{md_code(e.env), std::string(to_string(e.c->status)) +
                                                      (e.c->reason.empty() ? "" : ": " + to_string(e.c->reason))};
      for (const auto& m : row.metrics) cells.push_back(release_cell(e, m, untested));
      t.add(cells);
    }
    md += fmt::format("\n### `{}`\n\n", row.key) + to_markdown(t);
    if (untested) md += untested_footnote();
    md += release_anatomy_lines(row);
  }
  return md;
}

// How many of the cases ran in the pinned environment written to `file`
// (environments/env-<name>.json).
std::size_t cases_in_environment(const std::string& file, const std::vector<CaseResult>& cases) {
  std::string name = std::filesystem::path(file).stem().string();
  if (name.rfind("env-", 0) == 0) name.erase(0, 4);
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [&](const CaseResult& c) { return c.c.env == name; }));
}

std::string environments_section(const RunInfo& info, const std::vector<CaseResult>& cases) {
  if (info.environments.empty()) return "";
  std::string md =
      info.pinned_environments
          ? "\n## Environments\n\nThe cases ran in these pinned environments, built by jitbench: each in the "
            "environments its suite block names, or every case in each with `--env` (a case's id ends in "
            "`__env-<name>`; index.json `environments` has how each was built). \"Releases\" below sets them "
            "side by side.\n\n"
          : "\n## Environments\n\nThe shards of this merged run ran in different environments (hardware or "
            "packages differ). Each case keeps its own (index.json `environment`); a comparison between cases "
            "of different environments is marked ⚠ crosses environments.\n\n";
  std::vector<std::string> seen;
  for (const auto& [file, env] : info.environments) {
    if (std::find(seen.begin(), seen.end(), file) != seen.end()) continue;
    seen.push_back(file);
    if (info.pinned_environments) {
      const auto n = cases_in_environment(file, cases);
      md += fmt::format("- `{}` ({} case{}): {}\n", file, n, n == 1 ? "" : "s", environment_line(env));
    } else {
      md += fmt::format("- `{}`: {}\n", file, environment_line(env));
    }
  }
  return md;
}
}  // namespace

namespace {
// Everything a section of summary.md may read.
struct SummaryInput {
  const RunInfo& info;
  const std::vector<CaseResult>& cases;
  const Analysis& analysis;
  const std::vector<compare::ReleaseRow>& releases;
};

std::string header_md(const RunInfo& info, const std::vector<CaseResult>& cases) {
  std::vector<const Case*> measured;
  for (const auto& c : cases) measured.push_back(&c.c);
  std::string md = fmt::format("# jitbench: {}\n\n", run_title_md(info.suite_name, measured));
  md += fmt::format("Command: {}  \nSuite: {} · {} of {} cases measured  \nMachine: {}\n\n", md_literal(info.command),
                    md_literal(info.suite_source), cases.size(), info.n_planned, environment_line(info.environment));
  if (info.environment.test_gpu_on_cpu)
    md += fmt::format("**Test run: the GPU backends ran on the CPU** ({}=1, a test-only switch): no number here "
                      "is a GPU measurement, and this run cannot be published.\n\n", kTestGpuOnCpu);
  return md;
}

// The first screen: the run's question answered, then what failed and why.
std::string glance_md(const SummaryInput& in) {
  auto t = glance_table(in.cases, in.analysis);
  for (auto& r : t.rows) r.cells.erase(r.cells.begin() + 1);  // how many backends: the sections below show them
  t.columns.erase(t.columns.begin() + 1);
  std::string md = "## At a glance\n\n";
  if (!t.empty()) md += "Cold TTFR and warm call medians of the cases whose timings compare (below, per workload).\n\n" +
                        compact_markdown(t, t.columns) + "\n";
  const auto failed = failures_md(in.cases);
  md += failed.empty() ? "Every case ran cleanly.\n"
                       : "What did not run cleanly, and why (a warn case's timings, where it has any, are shown "
                         "for what they are and left out of every comparison, but for a warning about the phase "
                         "split alone, crosscheck_*: its times are measured, only their attribution to phases is "
                         "in doubt):\n\n" + failed;
  return md;
}

// What each section of summary.md shows, said once in its "How to read"
// block for the sections the run has (each table then stands under its
// heading alone): the section's heading, and the explanation.
struct Reading {
  const char* heading;
  std::string text;
};

std::vector<Reading> readings() {
  const auto least = std::to_string(stats::min_values_for_interval(stats::kReportConfidence));
  return {
      {"Interference", kInterferenceIntro},
      {"Sampling", kSamplingIntro},
      {"Verification", kVerificationIntro},
      {"Releases",
       "the same case in each environment, in the order given: medians over the processes, and in parentheses the "
       "ratio to the environment above, with its 95% CI where both have " + least + " or more processes — **bold** "
       "where the Mann–Whitney test finds the step significant (p < " + fmt::format("{:g}", compare::kReleaseAlpha) +
       "), as `jitbench compare` computes it. Instruction counts (run --count) show the ratio with their counting "
       "processes' spread as its interval, **bold** where it excludes 1 and Lord's range test finds a change "
       "(docs/noise.md, Instructions)."},
      {"Phases of the first call",
       "one table per backend, its phases as columns, each measured by the source listed below it; "
       "**unattributed** is the part of the first call no phase covers (executing the call, dispatch, and whatever "
       "the framework does not report), never folded into a phase. A run whose phases add up to more than its first "
       "call is failed (`inconsistent_timings`). Compiles: how many programs the first call compiled (analysis.json "
       "names them). Cross-check: a separate process compiled the same function ahead of time (JAX "
       "`jit(f).trace().lower().compile()`), timed by jitbench; it agrees when each of its steps is within a factor "
       "of 2 (or 5 ms) of the event-based phase."},
      {"Cache modes",
       "`cold_cache`: fresh process, each framework's default cache settings, any cache it writes by default "
       "starting empty (no run may read an entry that existed before it: `cache_not_cold`). `warm_cache`: fresh "
       "process, persistent cache on and primed by an unmeasured run; a run is ok only when the framework's own "
       "counters show a hit and no miss for the first call, in every cold run and the warm process, and the kernel "
       "saw a cache entry read (inotify) — else `cache_not_used`, `cache_partially_used`, `cache_evidence_conflict` "
       "or `cache_unverified`. `warm_process`: framework already imported with another function compiled; TTFR = "
       "setup + first call of a new function. Writing the cache is measured in the priming run."},
      {"Break-even",
       std::string(kNStarMeaning) + " From the medians, with its bootstrap 95% CI only where both cases have at least "
       + least + " cold runs (analysis.json keeps every CI). The baseline is the same framework without its JIT on "
       "the same device when the run has it (jax_eager_*, torch_eager*, tensorflow_eager*; numba's is NumPy), else "
       "NumPy; for `jitbench measure`, the function itself without its JIT."},
      {"Short loops",
       "start-up = the interpreter, the imports and building the inputs (process TTFR − first call); compile = the "
       "framework's own phases of the first call; a loop of N steps = start-up + first call + (⌈N / steps per "
       "call⌉ − 1) warm calls, from medians; the word after each total names the largest of start-up, compile and "
       "execution. N* steps = N* times the steps a call runs."},
      {"Transform pairs",
       "each pair runs the same computation two ways (medians). Compile = the framework's own trace + lower + "
       "compile events over the first call; XLA temp = the compiled program's temporary buffers as XLA accounts "
       "them (what remat trades against time); RSS growth = peak host RSS over the first call."},
      {"Accuracy against time",
       "the absolute error a workload reports of its own answer (mc_pi: |π − estimate| for n samples, the same "
       "points in every backend) against the cold time to first result and the warm call."},
      {"Throughput", kThroughputIntro},
      {"Memory and variance",
       "host RSS after import; growth of the peak RSS over the first two calls (the first call's compile is the "
       "peak; the peak is read after the second call so that nothing runs between the two); the workload's peak RSS "
       "(the worker's high-water mark read after the measured calls, before the harness computes the float64 "
       "reference and verifies: — where not reported); the whole process's peak beside it (wait4, that harness work "
       "included; — where a process's came within 0.5 MiB of its peak before its exec, as the copy of jitbench it "
       "was forked from, which wait4 cannot tell apart from the worker's); device peak where the framework reports it "
       "(the column is left out where none does). CV cold: coefficient of variation of cold TTFR across processes; "
       "CV warm: of the warm calls within one process."},
  };
}

// "How to read": the times every table shows, then each section's explanation,
// once, for the sections `body` has (Sampling's only where it has a table: with
// fixed counts it is one sentence that says all).
std::string how_to_read_md(const std::string& body, bool fixed_counts) {
  std::string md =
      "\n## How to read\n\n"
      "- **Cold TTFR** (time to first result) = import and device initialisation + building the inputs + the first "
      "synchronized call, in a fresh process with an empty compile cache; **process TTFR** adds the interpreter's "
      "own start-up (spawn to the worker's first line; the harness's own imports, verification and exit are buckets "
      "of their own, in each run's `buckets`). **Warm call** = one synchronized call once the function is compiled. "
      "Medians over the processes; beside each, n and the distribution-free 95% interval where there are " +
      std::to_string(stats::min_values_for_interval(stats::kReportConfidence)) +
      " or more runs, else the range (calls within one process are not independent: a warm interval comes from "
      "warm processes' medians).\n";
  for (const auto& r : readings())
    if (body.find(std::string("\n## ") + r.heading) != std::string::npos &&
        !(fixed_counts && r.heading == std::string("Sampling")))
      md += fmt::format("- **{}**: {}\n", r.heading, r.text);
  return md;
}

using SummarySection = std::string (*)(const SummaryInput&);

// A section summary.md shares with the report, built once in export/sections/, in summary.md's form.
template <Section (*build)(const SectionInput&), SectionForm form = SectionForm::Screen>
std::string shared(const SummaryInput& in) {
  return section_md(build({in.cases, in.analysis, in.info.environment}), form);
}

// summary.md after its first screen, in order; a section with nothing to say is "".
// Shared with the report (report.md and report.html), each built once in export/sections/: Sampling,
// Verification, Throughput, Instructions. summary.md's own, on purpose: the analysis -- per-workload tables,
// phases, cache modes, break-even, short loops, transform pairs, accuracy, memory, releases, interference and
// the compile's anatomy; the report has the figures instead, with the environment, warnings and every case
// (docs/report_doc.cc kReportSections).
// A new section is one file in export/sections/ (or one emitter here, if summary.md's alone) and one line
// here; its explanation is one entry of readings().
constexpr SummarySection kSummarySections[] = {
    [](const SummaryInput& in) { return environments_section(in.info, in.cases); },
    [](const SummaryInput& in) { return workload_sections(in.cases); },
    [](const SummaryInput& in) { return notes(in.cases); },
    [](const SummaryInput& in) { return interference_section_md(in.cases); },
    shared<sampling_section>,
    shared<verification_section>,
    [](const SummaryInput& in) { return releases_section(in.releases); },
    [](const SummaryInput& in) { return phases_section(in.analysis); },
    [](const SummaryInput& in) { return cache_modes_section(in.analysis); },
    [](const SummaryInput& in) { return break_even_section(in.analysis); },
    [](const SummaryInput& in) { return loops_section(in.analysis); },
    [](const SummaryInput& in) { return pairs_section(in.analysis); },
    [](const SummaryInput& in) { return accuracy_section(in.analysis); },
    shared<throughput_section>,
    [](const SummaryInput& in) { return memory_variance_section(in.analysis); },
    [](const SummaryInput& in) { return anatomy_section_md(in.cases); },
    shared<counts_section, SectionForm::Full>,  // explained under its heading: "How to read" has no entry
};
}  // namespace

std::string summary_md(const RunInfo& info, const std::vector<CaseResult>& cases, const Analysis& analysis,
                       const std::vector<compare::ReleaseRow>& releases) {
  const SummaryInput in{info, cases, analysis, releases};
  std::string body;
  for (const auto emit : kSummarySections) body += emit(in);
  return header_md(info, cases) + glance_md(in) + how_to_read_md(body, all_fixed_counts(cases)) + body;
}

}  // namespace jitbench
