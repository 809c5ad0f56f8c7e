#include "export/json/replication_json.h"

#include <fmt/format.h>

#include <map>

#include "export/json/index_json.h"
#include "export/json/json_util.h"
#include "export/json/publish_json.h"
#include "report/format.h"
#include "report/table.h"
#include "util/sha256.h"

namespace jitbench {
using nlohmann::json;

namespace {
json case_plan(const CaseResult& c) {
  return {{"case", c.c.id}, {"backend", c.c.backend}, {"workload", c.c.workload}, {"n", c.c.n},
          {"dtype", c.c.dtype}, {"cache_policy", to_string(c.c.cache_policy)},
          {"precision", to_string(c.c.precision)}, {"environment", c.c.env}, {"seed", c.seed},
          {"cold_runs", c.cold_runs}, {"warm_iters", c.warm_iters}, {"warm_runs", c.warm_runs},
          {"deterministic", c.deterministic}};
}

json answer_json(const compare::CaseAnswer& a) {
  return {{"case", a.case_id}, {"status", a.status}, {"reason", text_or_null(a.reason)}, {"runs", a.runs},
          {"runs_verified", a.runs_verified}, {"verified", a.verified()}};
}
}  // namespace

std::vector<FileWrite> experiment_files(const LoadedRun& run) {
  std::vector<FileWrite> out;
  json cases = json::array();
  for (const auto& c : run.cases) cases.push_back(case_plan(c));
  out.push_back({"plan.json", json_text({{"suite", {{"name", run.index.suite_name}, {"source", run.index.suite_source}}},
                                         {"jitbench_version", run.index.jitbench_version},
                                         {"cases", cases}})});
  for (const auto& in : run.index.inputs) out.push_back({in.path, read_file(run.dir / in.path)});
  out.push_back({"environment_pins.json", json_text(software_pins(run))});
  for (const auto& c : run.cases)
    out.push_back({"answers/" + c.c.id + ".json", json_text(answer_json(compare::case_answer(c)))});
  return out;
}

std::string replication_verdict(const ReplicationFacts& f) {
  std::string failed;
  for (const auto& g : f.gates)
    if (!g.passed) failed += (failed.empty() ? "" : ", ") + g.name;
  if (!failed.empty()) return "failed gates: " + failed;
  if (f.timings.differ > 0) return fmt::format("differs in {} metric{}", f.timings.differ, f.timings.differ == 1 ? "" : "s");
  if (f.timings.runs_needed)
    return fmt::format("inconclusive: every gate held, but no timing metric could be tested (too few runs a side for "
                       "p < {:g}); measure with at least {} cold processes per case (and --warm-runs {}), then "
                       "replicate that run", f.alpha, *f.timings.runs_needed, *f.timings.runs_needed);
  return "replicated";
}

namespace {
json verdict_json(const std::string& overall, const std::string& text, int gates_failed,
                  const compare::TimingReplication& t) {
  json v = {{"overall", overall}, {"text", text}, {"gates_failed", gates_failed}, {"metrics_tested", t.tested},
            {"metrics_differ", t.differ}};
  if (overall == "inconclusive") v["runs_needed"] = *t.runs_needed;
  return v;
}
}  // namespace

json replication_json(const ReplicationFacts& f) {
  json gates = json::array(), answers = json::array(), timings = json::array();
  int gates_failed = 0;
  for (const auto& g : f.gates) {
    gates.push_back({{"name", g.name}, {"passed", g.passed}, {"detail", g.detail}});
    gates_failed += g.passed ? 0 : 1;
  }
  for (const auto& [a, b] : f.answers)
    answers.push_back({{"case", a.case_id}, {"original", answer_json(a)}, {"replica", answer_json(b)}, {"same", a == b}});
  for (const auto& r : f.timings.rows)
    timings.push_back({{"case", r.case_id}, {"metric", r.metric}, {"n_original", r.n_original},
                       {"n_replica", r.n_replica}, {"original_median", r.original_median},
                       {"replica_median", r.replica_median}, {"ratio", r.ratio}, {"ratio_ci95", {r.lo, r.hi}},
                       {"p", r.p}, {"verdict", r.verdict}});
  const auto verdict = replication_verdict(f);
  const std::string overall = gates_failed         ? "failed_gates"
                              : f.timings.differ     ? "differs"
                              : f.timings.runs_needed ? "inconclusive"
                                                     : "replicated";
  return {{"schema_version", kReplicationSchema},
          {"generated_at", text_or_null(f.generated_at)},
          {"original", {{"snapshot_id", f.original_id}, {"dir", f.original->dir.string()},
                        {"snapshot_index_sha256", f.original_snapshot_index_sha256},
                        {"jitbench_git", git_build_or_null(f.original->index.jitbench_git)}}},
          {"replica", {{"snapshot_id", f.replica_id}, {"jitbench_git", git_build_or_null(f.replica->index.jitbench_git)}}},
          {"environment", {{"recreated", f.environment_note}, {"differences", f.environment_differences}}},
          {"tolerance_pct", f.tolerance_pct},
          {"alpha", f.alpha},
          {"gates", gates},
          {"answers", answers},
          {"timings", timings},
          {"verdict", verdict_json(overall, verdict, gates_failed, f.timings)}};
}

json seed_replication_report(const ReplicationFacts& f, const std::vector<FileWrite>& original_files,
                             const std::vector<FileWrite>& replica_files) {
  std::map<std::string, const FileWrite*> a, b;
  for (const auto& x : original_files) a[x.rel.string()] = &x;
  for (const auto& x : replica_files) b[x.rel.string()] = &x;
  json mismatches = json::array();
  int overlap = 0;
  const auto sha = [](const FileWrite* x) { return x ? json(sha256_hex(x->contents)) : json(nullptr); };
  const auto bytes = [](const FileWrite* x) { return x ? json(x->contents.size()) : json(nullptr); };
  std::map<std::string, int> all;
  for (const auto& [k, v] : a) all[k]++;
  for (const auto& [k, v] : b) all[k]++;
  for (const auto& [path, n] : all) {
    const FileWrite* x = a.count(path) ? a[path] : nullptr;
    const FileWrite* y = b.count(path) ? b[path] : nullptr;
    if (x && y) ++overlap;
    if (x && y && x->contents == y->contents) continue;
    mismatches.push_back({{"path", path}, {"original_sha256", sha(x)}, {"replica_sha256", sha(y)},
                          {"original_bytes", bytes(x)}, {"replica_bytes", bytes(y)}});
  }
  std::vector<FileEntry> listed;
  for (const auto& x : replica_files) listed.push_back({x.rel.string(), sha256_hex(x.contents), x.contents.size()});
  const json replica_index = seed_snapshot_index(f.replica_id, f.generated_at.empty() ? "unknown" : f.generated_at,
                                                 *f.replica, listed, "", "");
  const auto suite = f.original->index.suite_name.empty() ? std::string("unnamed") : f.original->index.suite_name;
  return {{"schema_version", kSeedReplicationSchema},
          {"generated_at", f.generated_at.empty() ? std::string("unknown") : f.generated_at},
          {"original", {{"snapshot_id", f.original_id}, {"suite", suite},
                        {"snapshot_index_sha256", f.original_snapshot_index_sha256}}},
          {"replica", {{"snapshot_id", f.replica_id}, {"suite", suite},
                       {"snapshot_index_sha256", sha256_hex(json_text(replica_index))}}},
          {"comparison", {{"overlap_paths", overlap}, {"mismatches", mismatches}, {"ok", mismatches.empty()}}},
          {"notes", fmt::format("jitbench replicate: comparison covers the deterministic part of each run "
                                "(replication/experiment/: plan, inputs, software pins, each case's verified answer); "
                                "ok means the same experiment with the same verified answers. Timings: {} ({} of {} "
                                "tested metrics differ by more than {:g}% at alpha {:g}; replication/replication.json).",
                                replication_verdict(f), f.timings.differ, f.timings.tested, f.tolerance_pct, f.alpha)},
          {"replica_snapshot_index", replica_index}};
}

namespace {
std::string ratio_cell(const compare::ReplicaRow& r) {
  return fmt::format("{:.2f} [{:.2f}, {:.2f}]", r.ratio, r.lo, r.hi);
}

std::string metric_value(const std::string& metric, double v) {
  return metric == "peak_rss_kib" ? fmt::format("{:.0f} MiB", v / 1024) : format_seconds(v);
}
}  // namespace

std::string replication_md(const ReplicationFacts& f) {
  std::string md = fmt::format("# Replication of `{}`\n\n**Verdict: {}.**\n\nReplica `{}`; software: {}.\n\n",
                               f.original_id, replication_verdict(f), f.replica_id, f.environment_note);
  Table gates{{"gate", "passed", "detail"}, {}};
  for (const auto& g : f.gates) gates.add({g.name, g.passed ? "yes" : "**no**", g.detail});
  md += "## Gates\n\n" + to_markdown(gates) + "\n";
  md += "## Environment differences (original vs replica)\n\n";
  if (f.environment_differences.empty()) md += "None: the same hardware and software.\n\n";
  for (const auto& d : f.environment_differences) md += "- " + md_cell(d) + "\n";
  if (!f.environment_differences.empty()) md += "\n";
  Table t{{"case", "metric", "original", "replica", "ratio [95% CI]", "p", "verdict"}, {}};
  for (const auto& r : f.timings.rows)
    t.add({"`" + r.case_id + "`", "`" + r.metric + "`",
           fmt::format("{} (n={})", metric_value(r.metric, r.original_median), r.n_original),
           fmt::format("{} (n={})", metric_value(r.metric, r.replica_median), r.n_replica), ratio_cell(r),
           fmt::format("{:.3g}", r.p), r.verdict == "slower" || r.verdict == "faster" ? "**" + r.verdict + "**" : r.verdict});
  md += fmt::format("## Timings (replica / original)\n\nOne sample per process, as `jitbench compare` takes them. A "
                    "metric differs when the Mann–Whitney test finds it different (p < {:g}) and its whole 95% CI "
                    "lies beyond ±{:g}%: {} of {} tested metrics do; `not testable` rows have too few processes for "
                    "the test to reach p < {:g}.\n\n",
                    f.alpha, f.tolerance_pct, f.timings.differ, f.timings.tested, f.alpha) +
        to_markdown(t);
  return md;
}

}  // namespace jitbench
