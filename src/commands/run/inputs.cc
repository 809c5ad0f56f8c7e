// What a run is planned from: the suite, the workload files with their records,
// the selection, an earlier run's costs; and the inputs copied into its out dir.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cli/selection.h"
#include "commands/run/run.h"
#include "config/catalog.h"
#include "env/host.h"
#include "plan/shard.h"
#include "results/read.h"
#include "util/fs.h"
#include "util/sha256.h"

namespace jitbench {
namespace {
Suite load_suite(const RunOptions& o, Catalog& catalog, const InputCopies& inputs) {
  if (o.suite_file.empty()) return default_suite();
  auto r = load_suite_file(o.suite_file, catalog, inputs);
  if (auto* e = std::get_if<ConfigError>(&r)) throw UserError(e->message);
  return std::get<Suite>(r);
}

// --workload-path with no --suite: the files' own plan (config/suite.h,
// workload_files_suite), named after them; --cases that name a built-in
// workload keep the default suite's blocks for it too.
Suite workload_files_suite_of(const RunOptions& o, const Catalog& catalog) {
  std::vector<std::string> names;
  for (const auto& path : o.workload_paths) {
    const auto stem = std::filesystem::path(path).stem().string();
    if (std::find(names.begin(), names.end(), stem) == names.end()) names.push_back(stem);
  }
  // A file whose record could not be read (said above) has no plan of its own: with --cases its cases are
  // planned as before (--backends), and fail with the worker's reason.
  const bool unread = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
    const auto w = catalog.find_workload(n);
    return !w || !w->record_loaded;
  });
  if (unread && !o.cases.empty()) return default_suite();
  auto r = workload_files_suite(catalog, names, !read_host_facts().gpus.empty());
  if (auto* e = std::get_if<ConfigError>(&r)) throw UserError(e->message);
  Suite s = std::get<Suite>(std::move(r));
  const bool built_in_case = std::any_of(o.cases.begin(), o.cases.end(), [&](const std::string& spec) {
    return std::none_of(names.begin(), names.end(), [&](const std::string& n) { return spec.starts_with(n + "_"); });
  });
  if (built_in_case) {
    s.name = "default";
    for (const auto& blk : default_suite().matrix) s.matrix.push_back(blk);
  }
  return s;
}

// Seconds each case of an earlier run took, all its processes together (--costs).
std::map<std::string, double> measured_costs(const std::string& dir) {
  require_valid_run(dir, "--costs");
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError("--costs: " + *e);
  std::map<std::string, double> out;
  for (const auto& c : std::get<LoadedRun>(loaded).cases) {
    double s = 0;
    for (const auto& r : c.cold) s += r.wall_s;
    for (const auto& r : c.warm) s += r.wall_s;
    if (c.priming) s += c.priming->wall_s;
    if (c.crosscheck) s += c.crosscheck->wall_s;
    // A wall time no machine measured (1e308 s) would make every expected cost infinite.
    if (!std::isfinite(s) || s > 1e9)
      throw UserError(fmt::format("--costs: case '{}' of '{}' records {:g} s of processes, not a time a run took",
                                  c.c.id, dir, s));
    out[c.c.id] = s;
  }
  return out;
}

// A --workload-path file beside --suite whose workload no block of the suite
// names is a mistake, not a silent no-op: the user meant to measure it.
void require_used_workload_files(const RunOptions& o, const Suite& suite) {
  if (o.suite_file.empty()) return;
  for (const auto& path : o.workload_paths) {
    const auto name = std::filesystem::path(path).stem().string();
    if (std::none_of(suite.matrix.begin(), suite.matrix.end(), [&](const MatrixBlock& b) {
          return std::find(b.workloads.begin(), b.workloads.end(), name) != b.workloads.end();
        }))
      throw UserError(fmt::format("--workload-path {}: its workload '{}' is in no block of suite '{}': add it to the "
                                  "suite's workloads, or drop --suite to run the file alone",
                                  path, name, suite.name));
  }
}
}  // namespace

PlannedRun make_planned_run(const RunOptions& o, const InputCopies& inputs) {
  // The catalog of this command: built-ins, then the user's workloads with their records.
  Catalog catalog = Catalog::builtin();
  for (const auto& path : o.workload_paths) {
    auto added = catalog.with_user_workload(inputs.path(path));  // a resumed run's copy
    if (auto* err = std::get_if<std::string>(&added)) throw UserError("--workload-path: " + *err);
    catalog = std::get<Catalog>(std::move(added));
  }
  for (const auto& r : o.workload_records) catalog = catalog.with_record(r);  // measure's: read once, as made
  PlannedRun p;
  p.inputs = inputs;
  p.suite = load_suite(o, catalog, inputs);
  catalog = load_user_workload_records(resolve_python(o.python), std::move(catalog));
  if (o.suite_file.empty() && !o.workload_paths.empty()) p.suite = workload_files_suite_of(o, catalog);
  p.environments = selected_environments(p.suite, o);
  auto planned = make_plan(catalog, p.suite, run_selection(o, catalog, p.environments));
  if (auto* e = std::get_if<std::string>(&planned)) throw UserError(*e);
  p.full = std::get<std::vector<Case>>(std::move(planned));
  require_used_workload_files(o, p.suite);
  const int processes = o.cold_runs.value_or(p.suite.cold_runs) + o.warm_runs.value_or(p.suite.warm_runs);
  const int calls = o.warm_iters.value_or(p.suite.warm_iters.value_or(kFixedWarmCalls)) *
                    o.warm_runs.value_or(p.suite.warm_runs);
  const auto measured = o.costs_dir.empty() ? std::map<std::string, double>{} : measured_costs(o.costs_dir);
  cost_and_shard(p, processes, calls, measured, o.shard, o.costs_dir);
  return p;
}

// The run's inputs, copied into the out dir and listed in the index: --resume
// measures from these copies, never from whatever the original paths hold later.
std::vector<FileWrite> input_copies(const RunOptions& o, const PlannedRun& p, std::vector<InputCopy>& listed) {
  namespace fs = std::filesystem;
  std::vector<FileWrite> files;
  listed.clear();
  const auto add = [&](const std::string& kind, const fs::path& source, const std::string& rel,
                       const std::string& from = "") {
    std::string text;
    try {  // a replica reads the original's copy; measure, the copy its workload pinned
      text = read_file(from.empty() ? p.inputs.path(source.string()) : from, /*follow_link=*/true);
    } catch (const std::exception& e) {
      throw UserError(fmt::format("cannot copy the {} into the out dir: {}", kind, e.what()));
    }
    listed.push_back({kind, fs::absolute(source).lexically_normal().string(), rel, sha256_hex(text)});
    files.push_back({rel, std::move(text)});
  };
  if (!o.suite_file.empty()) add("suite", o.suite_file, "inputs/suite.toml");
  std::vector<std::string> workloads = p.suite.workload_paths;
  workloads.insert(workloads.end(), o.workload_paths.begin(), o.workload_paths.end());
  for (const auto& w : workloads) {
    const auto source = fs::absolute(w).lexically_normal().string();
    if (std::none_of(listed.begin(), listed.end(), [&](const InputCopy& x) { return x.source == source; }))
      add("workload", w, "inputs/workloads/" + fs::path(w).filename().string());
  }
  for (const auto& k : o.kept_files) {
    if (k.file.empty() || fs::path(k.file).filename() != k.file || k.file[0] == '.')
      throw UserError(fmt::format("cannot keep {} as '{}': not a plain file name", k.source, k.file));
    add("target", k.source, "inputs/targets/" + k.file, k.copy);
  }
  return files;
}

// The recorded command's paths as the run saw them, wherever --resume is run
// from: relative ones against the directory it was started in, the suite and
// the workload files from the copies in the out dir, checked against their
// recorded sha256. Runs recorded before inputs were copied are resumed from
// the original paths (relative to the recorded directory when there is one).
InputCopies use_recorded_inputs(const RunIndex& index, const std::filesystem::path& dir, RunOptions& o) {
  namespace fs = std::filesystem;
  const fs::path cwd = index.cwd.empty() ? fs::current_path() : fs::path(index.cwd);
  const auto anchored = [&](std::string& p) {
    if (!p.empty() && fs::path(p).is_relative()) p = (cwd / p).lexically_normal().string();
  };
  anchored(o.python);
  anchored(o.costs_dir);
  for (auto& f : o.find_links) anchored(f);  // the wheels the environments were built from, where they were
  std::map<std::string, std::string> copies;
  for (const auto& in : index.inputs) {
    const fs::path copy = dir / in.path;
    std::string text;
    try {
      text = read_file(copy);
    } catch (const std::exception& e) {
      throw UserError(fmt::format("--resume: the copy of {} is unreadable: {}", in.source, e.what()));
    }
    if (sha256_hex(text) != in.sha256)
      throw UserError(fmt::format("--resume: {} (the copy of {}) is not the file the run was started with: its sha256 "
                                  "differs from the index", copy.string(), in.source));
    copies[in.source] = copy.string();
  }
  if (index.cwd.empty()) {
    anchored(o.suite_file);
    for (auto& w : o.workload_paths) anchored(w);
  }
  return InputCopies{cwd, std::move(copies)};
}

void keep_recorded_inputs(const RunIndex& index, RunHeader& h) {
  if (!index.cwd.empty()) h.sections.inputs.cwd = index.cwd;
  h.sections.inputs.inputs = index.inputs;
}

}  // namespace jitbench
