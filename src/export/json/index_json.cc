#include "export/json/index_json.h"

#include "export/json/json_util.h"
#include "results/views.h"
#include "util/build_info.h"

namespace jitbench {
using nlohmann::json;

json git_build_json(const GitBuild& g) {
  return {{"describe", g.describe}, {"sha", g.sha}, {"ref", g.ref}, {"repository", g.repository}, {"dirty", g.dirty}};
}
std::string json_value_text(const std::vector<std::string>& list) { return json(list).dump(); }
std::string json_value_text(const std::map<std::string, std::string>& map) { return json(map).dump(); }

json git_build_or_null(const std::optional<GitBuild>& g) { return g ? git_build_json(*g) : json(); }

namespace {
json resumptions_json(const std::vector<Resumption>& list) {
  json out = json::array();
  for (const auto& r : list) {
    json x = {{"at", text_or_null(r.at)}, {"kept", r.kept}, {"remeasured", r.remeasured}};
    if (r.slurm) x["slurm"] = *r.slurm;
    if (r.jitbench_git) x["jitbench_git"] = git_build_json(*r.jitbench_git);
    out.push_back(std::move(x));
  }
  return out;
}
json merged_section_json(const MergedSection& m) {
  json shards = json::array();
  for (const auto& s : m.shards) {
    json x = {{"dir", s.dir}, {"shard", s.shard}, {"index_sha256", s.index_sha256}, {"cases", s.cases},
              {"environment", s.environment}};
    if (s.slurm) x["slurm"] = *s.slurm;
    if (s.resumed) x["resumed"] = resumptions_json(*s.resumed);
    shards.push_back(std::move(x));
  }
  return {{"shards", shards}, {"missing_shards", m.missing_shards}, {"missing_cases", m.missing_cases},
          {"environments", m.environments}};
}
json recorded_environments_json(const std::vector<RecordedEnvironment>& list) {
  json out = json::array();
  for (const auto& e : list)
    out.push_back({{"name", e.name}, {"requirements", e.requirements}, {"python_request", e.python_request},
                   {"variables", e.variables}, {"file", e.file ? json(*e.file) : json()}, {"ok", e.ok},
                   {"reason", text_or_null(e.reason)}, {"build", e.build}});
  return out;
}
json interleaved_json(const std::vector<InterleavedGroup>& groups) {
  json out = json::array();
  for (const auto& g : groups) {
    json order = json::array();
    for (const auto& st : g.order) order.push_back({{"case", st.side}, {"cold", st.cold}});
    json x = {{"cases", g.cases}, {"order", order}};
    if (!g.runs.empty()) x["runs"] = g.runs;
    out.push_back(std::move(x));
  }
  return out;
}
template <typename T>
json opt_json(const std::optional<T>& v) {
  return v ? json(*v) : json();
}
json recorded_options_json(const RecordedOptions& r) {
  json policies = json::array(), precisions = json::array(), kept = json::array();
  for (const auto p : r.cache_policies) policies.push_back(std::string(to_string(p)));
  for (const auto p : r.precisions) precisions.push_back(std::string(to_string(p)));
  for (const auto& k : r.kept_files) kept.push_back({{"source", k.source}, {"file", k.file}});
  return {{"suite_file", r.suite_file}, {"python", r.python}, {"costs_dir", r.costs_dir}, {"machine", r.machine},
          {"deterministic", r.deterministic}, {"cold_runs", opt_json(r.cold_runs)},
          {"warm_iters", opt_json(r.warm_iters)}, {"warm_runs", opt_json(r.warm_runs)},
          {"min_runs", opt_json(r.min_runs)}, {"max_runs", opt_json(r.max_runs)}, {"timeout_s", opt_json(r.timeout_s)},
          {"target_ci_pct", opt_json(r.target_ci_pct)}, {"max_time_s", opt_json(r.max_time_s)}, {"cases", r.cases},
          {"backends", r.backends}, {"cache_policies", policies}, {"precisions", precisions},
          {"workload_paths", r.workload_paths}, {"kept_files", kept}, {"ceilings", r.ceilings},
          {"shard", r.shard ? json{{"index", r.shard->index}, {"count", r.shard->count}} : json()},
          {"envs", r.envs}, {"env_vars", r.env_vars}, {"find_links", r.find_links}, {"no_index", r.no_index},
          {"no_interleave", r.no_interleave}, {"anatomy", r.anatomy}, {"anatomy_runs", opt_json(r.anatomy_runs)},
          {"count", r.count}, {"count_source", r.count_source}, {"count_runs", opt_json(r.count_runs)},
          {"jobs", opt_json(r.jobs)}, {"affinity", r.affinity}};
}
}  // namespace

json index_sections_json(const IndexSections& s) {
  json out = json::object();
  if (s.shard)
    out["shard"] = {{"index", s.shard->index}, {"count", s.shard->count}, {"plan_digest", s.shard->plan_digest},
                    {"plan", s.shard->plan}, {"costs", s.shard->costs}};
  if (s.inputs.cwd) out["cwd"] = *s.inputs.cwd;
  if (!s.inputs.inputs.empty()) {
    out["inputs"] = json::array();
    for (const auto& in : s.inputs.inputs)
      out["inputs"].push_back({{"kind", in.kind}, {"source", in.source}, {"path", in.path}, {"sha256", in.sha256}});
  }
  if (s.slurm) out["slurm"] = *s.slurm;
  if (s.jitbench_git) out["jitbench_git"] = git_build_json(*s.jitbench_git);
  if (s.machine) out["machine"] = {{"label", s.machine->label}};
  if (s.environments) out["environments"] = recorded_environments_json(*s.environments);
  if (s.resumed) out["resumed"] = resumptions_json(*s.resumed);
  if (s.merged) out["merged"] = merged_section_json(*s.merged);
  if (s.interleaved) out["interleaved"] = interleaved_json(*s.interleaved);
  if (s.options) out["options"] = recorded_options_json(*s.options);
  return out;
}

json index_json(const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                const std::string& finished_at, const std::vector<FileEntry>& files, const Stopped* stopped) {
  json index_cases = json::array();
  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& c : cases) {
    index_cases.push_back({{"case", c.c.id},
                           {"status", to_string(c.status)},
                           {"reason", text_or_null(to_string(c.reason))},
                           {"path", "cases/" + c.c.id + ".json"},
                           {"cold_ttfr_median_s", median_or_null(cold_values(c, "ttfr_s"))},
                           {"warm_call_median_s", median_or_null(warm_values(c))}});
    if (!c.environment.empty()) index_cases.back()["environment"] = c.environment;
    (c.status == Status::Ok ? n_ok : c.status == Status::Warn ? n_warn : n_failed)++;
  }
  json file_list = json::array();
  for (const auto& f : files) file_list.push_back({{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
  json index = {{"schema_version", kIndexSchema},
                {"jitbench_version", jitbench_version()},
                {"suite", {{"name", h.info.suite_name}, {"source", h.info.suite_source}}},
                {"command", h.argv},
                {"complete", complete},
                {"started_at", text_or_null(h.started_at)},
                {"finished_at", text_or_null(finished_at)},
                {"environment", "environment.json"},
                {"cases", index_cases},
                {"summary",
                 {{"n_planned", h.info.n_planned},
                  {"n_cases", cases.size()},
                  {"n_ok", n_ok},
                  {"n_warn", n_warn},
                  {"n_failed", n_failed}}},
                {"files", file_list}};
  if (stopped) index["stopped"] = {{"reason", stopped->reason}, {"detail", stopped->detail}};
  const json sections = index_sections_json(h.sections);
  for (const auto& [k, v] : sections.items()) index[k] = v;
  return index;
}

}  // namespace jitbench
