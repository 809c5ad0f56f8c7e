#include "report/markdown.h"

#include <fmt/format.h>

#include <map>

#include "report/format.h"
#include "results/json.h"
#include "stats/stats.h"

namespace jitbench {
namespace {

std::string median_with_ci(const std::vector<double>& xs) {
  auto s = stats::summarize(xs);
  if (!s) return "—";
  if (s->n < 2) return format_seconds(s->median);
  return fmt::format("{} [{} – {}]", format_seconds(s->median), format_seconds(s->median_ci95.low),
                     format_seconds(s->median_ci95.high));
}

std::string median_of(const std::vector<double>& xs) { return format_seconds(stats::median(xs)); }

// A string at a JSON pointer, or fallback when absent or not a string.
std::string str_at(const nlohmann::json& j, const char* pointer, const std::string& fallback = "") {
  const auto ptr = nlohmann::json::json_pointer(pointer);
  return j.contains(ptr) && j.at(ptr).is_string() ? j.at(ptr).get<std::string>() : fallback;
}

std::string env_line(const nlohmann::json& env) {
  if (!env.is_object()) return "";
  std::string pkgs;
  const auto packages_ptr = nlohmann::json::json_pointer("/python/packages");
  if (env.contains(packages_ptr))
    for (const auto& [k, v] : env.at(packages_ptr).items())
      if (v.is_string()) pkgs += fmt::format("{}{} {}", pkgs.empty() ? "" : ", ", k, v.get<std::string>());
  const auto cores_ptr = nlohmann::json::json_pointer("/host/cpu/logical_cores");
  return fmt::format("{} · {} logical cores · {} · Python {} · {}", str_at(env, "/host/cpu/model", "unknown CPU"),
                     env.contains(cores_ptr) ? env.at(cores_ptr).dump() : "?", str_at(env, "/host/os"),
                     str_at(env, "/python/version"), pkgs);
}

std::string secs(const nlohmann::json& v) { return v.is_number() ? format_seconds(v.get<double>()) : "—"; }

std::string kib(const nlohmann::json& v) {
  if (!v.is_number()) return v.is_string() ? v.get<std::string>() : "—";
  return fmt::format("{:.1f} MiB", v.get<double>() / 1024.0);
}

std::string pct(const nlohmann::json& v) { return v.is_number() ? fmt::format("{:.1f}%", v.get<double>() * 100) : "—"; }

// A section with its heading and table header, or nothing when it has no rows.
std::string section(const std::string& heading_and_header, const std::string& rows) {
  return rows.empty() ? "" : heading_and_header + rows;
}

std::string attribution_section(const nlohmann::json& analysis) {
  std::string md;
  for (const auto& a : analysis.value("attribution", nlohmann::json::array()))
    md += fmt::format("| `{}` | {} | {:.0f}% | {:.0f}% |\n", a["backend"].get<std::string>(), a["cases"].get<int>(),
                      a["unattributed_share_median"].get<double>() * 100, a["unattributed_share_max"].get<double>() * 100);
  return section("\n### How much of the first call the phases explain, per backend\n\n| Backend | Cases | "
                 "Unattributed share (median) | (max) |\n|---|---|---|---|\n", md);
}

// Why a first call has no compile phases: the framework reported none, or it
// counted zero compiles -- nothing to compile (ahead of time, e.g. native),
// a program loaded from the persistent cache, or one compiled earlier in the
// same process.
std::string no_phases_label(const nlohmann::json& compiles, const nlohmann::json& policy) {
  if (!compiles.is_number()) return "(no compile reported)";
  if (policy == "warm_cache") return "(no compile: loaded from the cache)";
  if (policy == "warm_process") return "(no compile: compiled earlier in this process)";
  return "(nothing compiled at run time)";
}

std::string crosscheck_cell(const nlohmann::json& c) {
  const auto& x = c.value("crosscheck", nlohmann::json());
  if (!x.is_object()) return "—";
  if (!x["agrees"].is_boolean()) return x["reason"].is_string() ? md_cell(x["reason"].get<std::string>()) : "—";
  return x["agrees"].get<bool>() ? "agrees" : "**disagrees**";
}

// "4: jit(fit), jit(stack) ×2, ..." -- which functions the first call compiled.
std::string compiles_cell(const nlohmann::json& compiles) {
  const auto& n = compiles["first_call_median"];
  if (!n.is_number()) return "—";
  std::string out = fmt::format("{:g}", n.get<double>());
  const auto& by = compiles.value("first_call_by_function", nlohmann::json());
  if (!by.is_object() || by.empty()) return out;
  if (by.size() > 4) return out + fmt::format(" ({} functions)", by.size());
  std::string names;
  for (const auto& [name, k] : by.items())
    names += fmt::format("{}{}{}", names.empty() ? "" : ", ", md_cell(name),
                         k.is_number() && k.get<double>() > 1 ? fmt::format(" ×{:g}", k.get<double>()) : "");
  return out + ": " + names;
}

std::string phases_section(const nlohmann::json& analysis) {
  std::string md;
  for (const auto& c : analysis["cases"]) {
    const auto& fc = c["first_call"];
    if (fc["runs_with_phases"].get<int>() == 0) continue;
    std::string parts;
    for (const auto& [name, v] : fc["phases_median_s"].items())
      if (v.is_number() && v.get<double>() > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : " + ", name, secs(v));
    const auto& compiles = c["compiles"]["first_call_median"];
    if (parts.empty()) parts = no_phases_label(compiles, c["cache_policy"]);
    const auto& share = fc["unattributed_share_median"];
    md += fmt::format("| `{}` | {} | {} | {} ({}) | {} | {} |\n", c["case"].get<std::string>(), secs(fc["median_s"]),
                      parts, secs(fc["unattributed_median_s"]),
                      share.is_number() ? fmt::format("{:.0f}%", share.get<double>() * 100) : "—",
                      compiles_cell(c["compiles"]), crosscheck_cell(c));
  }
  std::string sources;
  std::map<std::string, std::string> seen;
  for (const auto& c : analysis["cases"]) {
    const auto backend = c["backend"].get<std::string>();
    const auto srcs = c["first_call"].value("phase_sources", nlohmann::json::object());
    for (const auto& [name, src] : srcs.items())
      if (src.is_string() && !src.get<std::string>().empty() && seen.emplace(backend + "/" + name, "").second)
        sources += fmt::format("- `{}` {}: {}\n", backend, name, md_cell(src.get<std::string>()));
  }
  return section("\n## Phases of the first call (medians)\n\nEach phase is measured by the source listed below; "
                 "**unattributed** is the part of the first call no phase covers (executing the call, dispatch, and "
                 "whatever the framework does not report), never folded into a phase. A run whose phases add up to "
                 "more than its first call is failed (`inconsistent_timings`). Cross-check: a separate process "
                 "compiled the same function ahead of time (JAX `jit(f).trace().lower().compile()`), timed by "
                 "jitbench; it agrees when each of its steps is within a factor of 2 (or 5 ms) of the event-based "
                 "phase.\n\n| Case | First call | Phases | Unattributed (share) | Compiles | Cross-check |\n"
                 "|---|---|---|---|---|---|\n",
                 md) +
         (md.empty() ? "" : "\nPhase sources:\n\n" + sources) + attribution_section(analysis);
}

std::string priming_cell(const nlohmann::json& row) {
  if (!row.contains("warm_cache") || !row["warm_cache"]["priming"].is_object()) return "—";
  const auto& p = row["warm_cache"]["priming"];
  return fmt::format("first call {}, of which writing {}", secs(p["first_call_s"]),
                     p["cache_write_s"].is_number() ? secs(p["cache_write_s"]) : "not reported");
}

std::string cache_modes_section(const nlohmann::json& analysis) {
  static const char* kModes[] = {"cold_cache", "warm_cache", "warm_process"};
  std::string md;
  for (const auto& row : analysis["cache_modes"]) {
    int present = 0;
    for (const char* m : kModes) present += row.contains(m);
    if (present < 2) continue;
    md += fmt::format("| `{}` |", row["key"].get<std::string>());
    for (const char* m : kModes) {
      if (!row.contains(m)) {
        md += " — |";
        continue;
      }
      const auto& e = row[m];
      md += e["status"] == "ok" ? fmt::format(" {} (first call {}) |", secs(e["ttfr_median_s"]), secs(e["first_call_median_s"]))
                                : fmt::format(" {}: {} |", e["status"].get<std::string>(),
                                              e["reason"].is_string() ? e["reason"].get<std::string>() : "");
    }
    md += " " + priming_cell(row) + " |\n";
  }
  return section("\n## Cache modes: time to first result (median)\n\n`cold_cache`: fresh process, each framework's "
         "default cache settings, any cache it writes by default starting empty (no run may read an entry that "
         "existed before it: `cache_not_cold`). `warm_cache`: fresh process, persistent cache on and primed by an "
         "unmeasured run; a run is ok only when the framework's own counters show a hit and no miss for the first "
         "call, in every cold run and the warm process, and the kernel saw a cache entry read (inotify) — else "
         "`cache_not_used`, `cache_partially_used`, `cache_evidence_conflict` or `cache_unverified`. "
         "`warm_process`: framework already imported with another function compiled; TTFR = setup + first call of a "
         "new function. Writing the cache is measured in the priming run.\n\n"
         "| Case | cold_cache | warm_cache | warm_process | Filling the cache (priming run) |\n"
         "|---|---|---|---|---|\n", md);
}

std::string break_even_section(const nlohmann::json& analysis) {
  std::string md;
  for (const auto& b : analysis["break_even"]) {
    std::string n;
    const auto& ci = b["calls_ci95"];
    if (b["verdict"] == "never") n = "never (not faster warm)";
    else if (b["verdict"] == "immediately") n = "immediately";
    else
      n = fmt::format("{:.1f} [{} – {}]", b["calls"].get<double>(),
                      ci[0].is_number() ? fmt::format("{:.1f}", ci[0].get<double>()) : "—",
                      ci[1].is_number() ? fmt::format("{:.1f}", ci[1].get<double>()) : "never");
    const auto& base = b.value("baseline", nlohmann::json::object());
    const std::string kind = base.value("kind", "numpy") == "same_framework"
                                 ? "same framework, same device"
                                 : "NumPy" + (base["note"].is_string() ? " (" + md_cell(base["note"].get<std::string>()) + ")"
                                                                       : std::string());
    md += fmt::format("| `{}` | `{}` | {} | {} | {} | {} | {} | {} |\n", b["jit_case"].get<std::string>(),
                      b["eager_case"].get<std::string>(), kind, secs(b["ttfr_jit_s"]), secs(b["ttfr_eager_s"]),
                      secs(b["warm_jit_s"]), secs(b["warm_eager_s"]), n);
  }
  return section("\n## Break-even against the eager baseline\n\nN* = (TTFR_jit − TTFR_eager) / (warm_eager − warm_jit): "
         "the number of further calls after which the JIT has paid for itself (bootstrap 95% CI). The baseline is "
         "the same framework without its JIT on the same device when the run has it (jax_eager_*, torch_eager*), "
         "else NumPy, and the table says which.\n\n"
         "| JIT case | Eager case | Baseline | TTFR JIT | TTFR eager | Warm JIT | Warm eager | N* [95% CI] |\n"
         "|---|---|---|---|---|---|---|---|\n", md);
}

std::string memory_variance_section(const nlohmann::json& analysis) {
  std::string md;
  for (const auto& c : analysis["cases"]) {
    if (c["status"] == "warn" && !c["memory"]["peak_rss_kib_max"].is_number()) continue;
    const auto& m = c["memory"];
    const auto& v = c["variance"];
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", c["case"].get<std::string>(),
                      kib(m["rss_after_import_kib_median"]), kib(m["compile_rss_growth_kib_median"]),
                      kib(m["peak_rss_kib_max"]), m["device_peak_bytes"].is_number() ? fmt::format("{:.1f} MiB", m["device_peak_bytes"].get<double>() / 1048576.0) : "not reported",
                      pct(v["between_process_cv_ttfr"]), pct(v["within_process_cv_warm"]));
  }
  return section("\n## Memory and variance\n\nHost RSS after import; growth of the peak RSS over the first two calls "
         "(the first call's compile is the peak; the peak is read after the second call so that nothing runs between "
         "the two); the worker's peak RSS (wait4); device peak where the framework reports it. Variance: CV of cold "
         "TTFR across processes vs CV of warm calls within one process.\n\n| Case | RSS after import | First-call "
         "RSS growth | Peak RSS | Device peak | Between-process CV | Within-process CV |\n|---|---|---|---|---|---|---|\n", md);
}
std::string bytes(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.2f} MiB", v.get<double>() / 1048576.0) : "—";
}

std::string pairs_section(const nlohmann::json& analysis) {
  std::string md;
  for (const auto& row : analysis["pairs"]) {
    for (const auto& v : row["variants"]) {
      md += fmt::format("| {} | {} | {} | {} | `{}` | {} | {} | {} | {} | {} |\n", row["pair"].get<std::string>(),
                        row["backend"].get<std::string>(), row["n"].get<long>(), row["dtype"].get<std::string>(),
                        v["workload"].get<std::string>(), secs(v["first_call_median_s"]), secs(v["compile_median_s"]),
                        secs(v["warm_median_s"]), bytes(v["compiled_temp_bytes"]),
                        kib(v["first_call_rss_growth_kib_median"]));
    }
  }
  return section("\n## Transform pairs\n\nEach pair runs the same computation two ways (medians). Compile = the "
                 "framework's own trace + lower + compile events over the first call; XLA temp = the compiled "
                 "program's temporary buffers as XLA accounts them (what remat trades against time); RSS growth = "
                 "peak host RSS over the first call.\n\n| Pair | Backend | n | dtype | Variant | First call | "
                 "Compile | Warm call | XLA temp | RSS growth |\n|---|---|---|---|---|---|---|---|---|---|\n", md);
}

std::string accuracy_section(const nlohmann::json& analysis) {
  std::string md;
  for (const auto& a : analysis["accuracy"]) {
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", a["case"].get<std::string>(), a["backend"].get<std::string>(),
                      a["n"].get<long>(), a["abs_error"].is_number() ? fmt::format("{:.2e}", a["abs_error"].get<double>()) : "—",
                      secs(a["ttfr_median_s"]), secs(a["warm_median_s"]));
  }
  return section("\n## mc_pi: error against time\n\n|π − estimate| for n samples (the same points in every "
                 "backend) against the cold time to first result and the warm call.\n\n| Case | Backend | n | "
                 "Abs. error | Cold TTFR | Warm call |\n|---|---|---|---|---|---|\n", md);
}
}  // namespace

std::string markdown_summary(const RunInfo& info, const std::vector<CaseResult>& cases,
                             const nlohmann::json& analysis) {
  std::string md = fmt::format("# jitbench: suite `{}`\n\n", info.suite_name);
  md += fmt::format("Command: `{}`  \nSuite: `{}` · {} of {} cases measured  \nMachine: {}\n\n", info.command,
                    info.suite_source, cases.size(), info.n_planned, env_line(info.environment));
  md += "**Cold TTFR** (time to first result) = import and device initialisation + building the inputs + the "
        "first synchronized call, in a fresh process with an empty compile cache; **process TTFR** adds the "
        "interpreter's own start-up. **Warm call** = one synchronized call once the function is compiled. "
        "Medians with bootstrap 95% confidence intervals over the cold runs.\n\n";
  md += "| Case | Status | Matmul precision | Cold TTFR (median, 95% CI) | Process TTFR | Import | First call | Second call | Warm call (median) | Warm p95 | Cold runs |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases) {
    const auto warm = warm_values(c);
    const auto* w = c.first_worker_report();
    const auto fmt_ptr = "/precision/matmul"_json_pointer;
    const std::string prec = w && w->contains(fmt_ptr) && w->at(fmt_ptr).is_string() ? w->at(fmt_ptr).get<std::string>() : "—";
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.c.id, to_string(c.status), prec,
                      median_with_ci(cold_values(c, "ttfr_s")), median_of(cold_values(c, "process_ttfr_s")),
                      median_of(cold_values(c, "import_s")), median_of(cold_values(c, "first_call_s")),
                      median_of(cold_values(c, "second_call_s")), median_of(warm),
                      format_seconds(stats::percentile(warm, 95)), cold_values(c, "ttfr_s").size());
  }
  std::string notes;
  for (const auto& c : cases) {
    if (c.status == Status::Ok) continue;
    notes += fmt::format("- `{}` — **{}**: {}{}\n", c.c.id, to_string(c.status), md_cell(c.reason),
                         c.detail.empty() ? "" : " — " + md_cell(c.detail));
  }
  if (!notes.empty())
    md += "\n## Cases that did not run cleanly\n\nA warn case's timings, where it has any (interpreter_only), are "
          "shown above for what they are and left out of every comparison below.\n\n" + notes;
  std::string few;
  for (const auto& c : cases) {
    auto cv = stats::coefficient_of_variation(cold_values(c, "ttfr_s"));
    if (cv && *cv > 0.10) few += fmt::format("- `{}`: cold TTFR varies by {:.0f}% (coefficient of variation)\n", c.c.id, *cv * 100);
  }
  if (!few.empty()) md += "\n## High variance\n\n" + few;
  md += phases_section(analysis) + cache_modes_section(analysis) + break_even_section(analysis) +
        pairs_section(analysis) + accuracy_section(analysis) + memory_variance_section(analysis);
  return md;
}

}  // namespace jitbench
