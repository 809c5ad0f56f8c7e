// `jitbench merge OUT SHARD...`: the out dirs of one plan's shards (`run
// --shard K/N`, on any machines) into one run. Every shard is verified first
// (schemas and sha256, as `validate` does); shards of different suites, plans
// or jitbench versions, a shard or a case given twice, are refused; missing
// shards and cases are named. Case files are copied byte for byte, each case
// keeps the environment it ran in, and the analysis, summary and ML-suite
// export are made anew from all of them.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "artifacts/write_run.h"
#include "commands/commands.h"
#include "commands/merge.h"
#include "export/json/index_json.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/say.h"
#include "util/sha256.h"
#include "validate/check_out_dir.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace merging {
Shard load_shard(const std::string& dir) {
  if (!fs::is_directory(dir)) throw UserError(fmt::format("shard '{}' is not a directory", dir));
  const auto rep = check_out_dir(dir);
  if (!rep.errors.empty())
    throw UserError(fmt::format("shard '{}' refused: {} (see `jitbench validate {}`)", dir, rep.errors.front(), dir));
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(fmt::format("shard '{}' refused: {}", dir, *e));
  Shard s;
  s.dir = dir;
  s.run = std::get<LoadedRun>(std::move(loaded));
  const auto& sh = s.run.index.shard;
  if (!sh)
    throw UserError(fmt::format("'{}' is not a shard: it was not run with --shard K/N (`jitbench plan --shard` "
                                "shows a plan's shards)", dir));
  s.index = sh->index;
  s.count = sh->count;
  s.digest = sh->plan_digest;
  s.label = fmt::format("{}/{}", s.index, s.count);
  s.index_sha256 = sha256_file(fs::path(dir) / "index.json");
  s.environment_text = read_file(fs::path(dir) / "environment.json");
  for (const auto& f : s.run.index.files) s.listed.insert(f.path);
  s.environments = s.run.index.environments.value_or(std::vector<RecordedEnvironment>{});
  return s;
}

// What one case's samples are: shards measured with other settings would mix
// samples of different sizes and kinds in one table.
std::string settings_of(const CaseResult& c) {
  const auto& rule = c.sampling.rule;
  const std::string counts =
      rule ? fmt::format("runs until +-{:g}% ({} to {}{}), warm processes of {} to {} calls", rule->target_pct,
                         rule->min_runs, rule->max_runs,
                         rule->max_time_s ? fmt::format(", {:g} s at most", *rule->max_time_s) : "",
                         c.sampling.warm_min_calls, c.warm_iters)
           : fmt::format("{} cold runs, {} warm processes of {} calls", c.cold_runs, c.warm_runs, c.warm_iters);
  return fmt::format("{}, timeout {:g} s{}, seed {}", counts, c.timeout_s, c.deterministic ? ", deterministic" : "",
                     c.seed);
}

void check_same_settings(const std::vector<Shard>& shards) {
  const CaseResult* first = nullptr;
  const Shard* first_shard = nullptr;
  for (const auto& s : shards)
    for (const auto& c : s.run.cases) {
      if (!first) {
        first = &c;
        first_shard = &s;
      } else if (settings_of(c) != settings_of(*first)) {
        throw UserError(fmt::format("shards measured with different settings: '{}' ran {} ({}), '{}' ran {} ({}); run "
                                    "every shard with the same command",
                                    first_shard->dir, first->c.id, settings_of(*first), s.dir, c.c.id, settings_of(c)));
      }
    }
}

// OUT must be a directory of its own: written inside a shard, it would add
// files the shard's index does not list, and the shard would fail validate.
void check_out_outside_shards(const std::string& out, const std::vector<Shard>& shards) {
  std::vector<ReadDir> dirs;
  for (const auto& s : shards) dirs.push_back({"shard", s.dir});
  require_outside_inputs(out, "merge: OUT", dirs);
}

// The command that measures a missing shard: the first shard's own, for shard k.
std::string command_for_shard(const Shard& like, int k, const std::string& out_dir) {
  std::string cmd;
  const auto& argv = like.run.index.command;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string a = argv[i];
    if ((a == "--shard" || a == "--out-dir") && i + 1 < argv.size()) {
      cmd += fmt::format(" {} {}", a, a == "--shard" ? fmt::format("{}/{}", k, like.count) : out_dir);
      ++i;
      continue;
    }
    if (a.rfind("--shard=", 0) == 0) a = fmt::format("--shard={}/{}", k, like.count);
    if (a.rfind("--out-dir=", 0) == 0) a = "--out-dir=" + out_dir;
    cmd += (cmd.empty() ? "" : " ") + a;
  }
  return cmd;
}

// One pinned environment is one build in every shard (the same name, the same
// hash), and every shard measured the same input files: else they are not one run.
void check_same_inputs_and_environments(const std::vector<Shard>& shards) {
  std::map<std::string, std::pair<std::string, std::string>> hash_of;  // name -> (hash, shard)
  std::map<std::string, std::pair<std::string, std::string>> input_of;  // path -> (sha256, shard)
  for (const auto& s : shards) {
    for (const auto& e : s.environments) {
      const auto& name = e.name;
      if (!e.ok) continue;  // one that failed to build in a shard is no build to compare
      // What makes the environment: its build and the variables its workers saw.
      const auto made = recorded_build_hash(e) + " with variables " + json_value_text(e.variables);
      if (auto [it, fresh] = hash_of.emplace(name, std::pair{made, s.dir}); !fresh && it->second.first != made)
        throw UserError(fmt::format("environment '{}' is not the same in '{}' (build {}) and '{}' (build {}): "
                                    "shards of one run use the same environments", name, it->second.second,
                                    it->second.first, s.dir, made));
      const auto file = e.file.value_or("");
      if (file != "environments/env-" + name + ".json" || !s.listed.count(file))
        throw UserError(fmt::format("shard '{}': environment '{}' names the file '{}', not its own "
                                    "environments/env-{}.json listed in the shard's index", s.dir, name, file, name));
    }
    for (const auto& in : s.run.index.inputs)
      if (auto [it, fresh] = input_of.emplace(in.path, std::pair{in.sha256, s.dir}); !fresh && it->second.first != in.sha256)
        throw UserError(fmt::format("'{}' differs between shards '{}' and '{}': shards of one run measure the same files",
                                    in.source, it->second.second, s.dir));
    const auto paths = [](const Shard& x) {
      std::set<std::string> out;
      for (const auto& in : x.run.index.inputs) out.insert(in.path);
      return out;
    };
    if (paths(s) != paths(shards.front()))
      throw UserError(fmt::format("shards '{}' and '{}' were started with different input files: shards of one run "
                                  "measure the same files", shards.front().dir, s.dir));
  }
}

// The pinned environments of every shard, once each (a shard lists those its cases used).
std::vector<RecordedEnvironment> union_of_environments(const std::vector<Shard>& shards) {
  std::vector<RecordedEnvironment> all;
  std::set<std::string> seen;
  for (bool ok : {true, false})  // an environment built in some shard is listed as built
    for (const auto& s : shards)
      for (const auto& e : s.environments)
        if (e.ok == ok && seen.insert(e.name).second) all.push_back(e);
  return all;
}

// Shards that can be one run: same suite, plan and jitbench; no shard or case twice.
void check_consistent(const std::vector<Shard>& shards) {
  const Shard& a = shards.front();
  std::map<int, std::string> by_index;
  std::map<std::string, std::string> case_in;
  for (const auto& s : shards) {
    const auto& i = s.run.index;
    // The suite by name (its file may sit at another path on another machine);
    // the plan digest below holds the suites to the same cases.
    if (i.suite_name != a.run.index.suite_name)
      throw UserError(fmt::format("shards of different suites: '{}' ran '{}' ({}), '{}' ran '{}' ({})", a.dir,
                                  a.run.index.suite_name, a.run.index.suite_source, s.dir, i.suite_name, i.suite_source));
    if (i.jitbench_version != a.run.index.jitbench_version)
      throw UserError(fmt::format("shards of different jitbench versions: '{}' is {}, '{}' is {}", a.dir,
                                  a.run.index.jitbench_version, s.dir, i.jitbench_version));
    if (s.count != a.count || s.digest != a.digest)
      throw UserError(fmt::format("shards of different plans: '{}' is shard {} of plan {}, '{}' is shard {} of plan {} "
                                  "(run every shard with the same suite, selection and --costs)",
                                  a.dir, a.label, a.digest.substr(0, 12), s.dir, s.label, s.digest.substr(0, 12)));
    if (s.run.environment.test_gpu_on_cpu != a.run.environment.test_gpu_on_cpu)
      throw UserError(fmt::format("shards measured on different devices: '{}' was {} the test-only switch {}=1 "
                                  "and '{}' was not; measure every shard the same way",
                                  a.run.environment.test_gpu_on_cpu ? a.dir : s.dir,
                                  "made with", kTestGpuOnCpu, a.run.environment.test_gpu_on_cpu ? s.dir : a.dir));
    if (auto [it, fresh] = by_index.emplace(s.index, s.dir); !fresh)
      throw UserError(fmt::format("shard {} given twice: '{}' and '{}'", s.label, it->second, s.dir));
    for (const auto& c : s.run.cases)
      if (auto [it, fresh] = case_in.emplace(c.c.id, s.dir); !fresh)
        throw UserError(fmt::format("case '{}' is in two shards: '{}' and '{}'", c.c.id, it->second, s.dir));
  }
  check_same_settings(shards);
  check_same_inputs_and_environments(shards);
}

void copy_logs(const OutDir& out, const Shard& s, const std::string& case_id) {
  const fs::path from = fs::path(s.dir) / "logs" / case_id;
  std::error_code ec;
  if (!fs::is_directory(from, ec) || fs::is_symlink(from, ec)) return;
  for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file() || it->is_symlink()) continue;
    out.write_text((fs::path("logs") / case_id / fs::relative(it->path(), from)).string(), read_file(it->path()));
  }
}
// One environment file per distinct machine + software: "environment.json"
// for every shard when they all agree, else environments/env-K.json.
std::vector<std::string> group_environments(const std::vector<Shard>& shards, std::size_t* distinct) {
  std::vector<const nlohmann::json*> prints;  // one manifest per distinct environment
  std::vector<std::string> file_of;
  for (const auto& s : shards) {
    const auto& m = s.run.environment.manifest;
    auto it = std::find_if(prints.begin(), prints.end(),
                           [&](const nlohmann::json* p) { return environment_differences(*p, m).empty(); });
    if (it == prints.end()) it = prints.insert(prints.end(), &m);
    file_of.push_back(fmt::format("environments/env-{}.json", it - prints.begin() + 1));
  }
  *distinct = prints.size();
  if (prints.size() == 1) std::fill(file_of.begin(), file_of.end(), "environment.json");
  return file_of;
}

// A case measured in a pinned environment (--env, [[environments]]) points at
// environments/env-<name>.json; one that ran in its shard's own, at environment.json.
bool pinned(const CaseResult& c) { return c.environment.rfind("environments/env-", 0) == 0; }

// The shards' files into `out` (environments, logs), their cases by id, and
// the index's list of shards.
std::map<std::string, CaseResult> copy_shards(const OutDir& out, const std::vector<Shard>& shards,
                                              const std::vector<std::string>& env_of,
                                              std::vector<MergedShard>& shard_list) {
  out.write_text("environment.json", shards.front().environment_text);
  std::set<std::string> written{"environment.json"};
  std::map<std::string, CaseResult> by_id;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto& s = shards[i];
    if (written.insert(env_of[i]).second) out.write_text(env_of[i], s.environment_text);
    for (const auto& c : s.run.cases) {
      copy_logs(out, s, c.c.id);
      CaseResult copy = c;
      if (!pinned(c)) copy.environment = env_of[i];  // a pinned case keeps its environment's own file
      by_id.emplace(c.c.id, std::move(copy));
    }
    // The pinned environments' manifests and the input copies, once each (the same in every shard: checked).
    std::vector<std::string> kept;
    for (const auto& e : s.environments)
      if (e.file) kept.push_back(*e.file);
    for (const auto& in : s.run.index.inputs) kept.push_back(in.path);
    for (const auto& rel : kept)  // only what the shard's index lists (and validate checked) is read
      if (s.listed.count(rel) && written.insert(rel).second) out.write_text(rel, read_file(fs::path(s.dir) / rel));
    // Where and how the shard ran: its Slurm job and its own resumptions.
    shard_list.push_back({fs::absolute(s.dir).lexically_normal().string(), s.label, s.index_sha256,
                          s.run.cases.size(), env_of[i], s.run.index.slurm, s.run.index.resumed});
  }
  return by_id;
}

// What the shards recorded of the run as a whole, kept: the pinned
// environments (as built, and each one's manifest for the summary), the input
// copies and the directory the run was started from.
void keep_pinned_environments(RunHeader& h, const std::vector<Shard>& shards, const OutDir& out) {
  keep_recorded_inputs(shards.front().run.index, h);  // the same in every shard: checked
  const auto envs = union_of_environments(shards);
  if (envs.empty()) return;
  h.sections.environments = envs;
  h.info.pinned_environments = true;
  for (const auto& e : envs)
    if (e.ok && e.file) {
      const auto& file = *e.file;
      auto info = read_environment(out.root() / file);
      if (auto* env = std::get_if<EnvironmentInfo>(&info)) h.info.environments.emplace_back(file, *env);
    }
}

int say_what_is_missing(const MergedSection& merged, const std::vector<std::string>& incomplete,
                        const std::vector<Shard>& shards) {
  for (const auto& label : merged.missing_shards) {
    const int index = std::stoi(label.substr(0, label.find('/')));
    say(stderr, "jitbench: merge: shard {} is missing; measure it with: {}\n", label,
        command_for_shard(shards.front(), index, fmt::format("<new dir for shard {}>", index)));
  }
  if (const auto& m = merged.missing_cases; !m.empty())
    say(stderr, "jitbench: merge: {} planned case{} measured by no shard given: {}\n", m.size(),
        m.size() == 1 ? " was" : "s were", json_value_text(m));
  for (const auto& d : incomplete)
    say(stderr, "jitbench: merge: shard '{}' did not finish; `jitbench run --resume {}` completes it\n", d, d);
  return kExitIncompleteMerge;
}
}  // namespace merging

int cmd_merge(const MergeOptions& o, int argc, char** argv) {
  using namespace merging;
  std::vector<Shard> shards;
  for (const auto& dir : o.shards) shards.push_back(load_shard(dir));
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  check_consistent(shards);
  check_out_outside_shards(o.out, shards);
  std::size_t distinct = 0;
  const auto env_of = group_environments(shards, &distinct);
  for (const auto& e : union_of_environments(shards))  // a pinned environment named "1" and shard manifest env-1
    if (distinct > 1 && std::find(env_of.begin(), env_of.end(), e.file.value_or("")) != env_of.end())
      throw UserError(fmt::format("the pinned environment '{}' has the name merge gives the manifest of a shard ({}): "
                                  "rename it (--env NAME:...)", e.name, e.file.value_or("")));

  auto prepared = OutDir::prepare(o.out);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  const OutDir out = std::get<OutDir>(prepared);
  MergedSection merged;
  auto by_id = copy_shards(out, shards, env_of, merged.shards);

  // The plan's order; what no shard measured is named.
  const Shard& first = shards.front();
  std::vector<CaseResult> cases;
  for (const auto& id : first.run.index.shard->plan)
    if (auto it = by_id.find(id); it != by_id.end()) cases.push_back(std::move(it->second));
    else merged.missing_cases.push_back(id);
  for (int k = 1; k <= first.count; ++k)
    if (std::none_of(shards.begin(), shards.end(), [&](const Shard& s) { return s.index == k; }))
      merged.missing_shards.push_back(fmt::format("{}/{}", k, first.count));
  std::vector<std::string> incomplete;
  for (const auto& s : shards)
    if (!s.run.index.complete) incomplete.push_back(s.dir);

  RunHeader h;
  h.argv.assign(argv, argv + argc);
  for (const auto& a : h.argv) h.info.command += (h.info.command.empty() ? "" : " ") + a;
  h.started_at = utc_now();
  h.info.suite_name = first.run.index.suite_name;
  h.info.suite_source = first.run.index.suite_source;
  h.info.n_planned = first.run.index.shard->plan.size();
  h.info.environment = first.run.environment;
  const std::set<std::string> envs(env_of.begin(), env_of.end());
  for (std::size_t i = 0; i < shards.size() && distinct > 1; ++i)
    h.info.environments.emplace_back(env_of[i], shards[i].run.environment);
  keep_pinned_environments(h, shards, out);
  h.sections.jitbench_git = this_build();
  merged.environments.assign(envs.begin(), envs.end());
  h.sections.merged = merged;
  const bool complete = merged.missing_cases.empty() && merged.missing_shards.empty() && incomplete.empty();
  write_run_artifacts(out, h, cases, complete);
  const std::size_t n_envs = h.info.pinned_environments ? h.sections.environments->size() : distinct;
  say(stdout, "merged {} shard{} of {}: {} of {} cases in {} {}environment{} -> {}\n", shards.size(),
      shards.size() == 1 ? "" : "s", first.count, cases.size(), h.info.n_planned, n_envs,
      h.info.pinned_environments ? "pinned " : "", n_envs == 1 ? "" : "s", out.root().string());
  return complete ? 0 : say_what_is_missing(merged, incomplete, shards);
}

}  // namespace jitbench
