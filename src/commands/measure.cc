// `jitbench measure TARGET`: the worker turns the user's function into a
// workload file (its "shim", worker/jitbench_worker/harness/target.py), and that file
// is run exactly as `run --workload-path` alone runs one: the JIT backend the
// function was wrapped for and its eager baseline, named after the function.
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "cli/recorded_options.h"
#include "commands/commands.h"
#include "commands/run/run.h"
#include "config/catalog.h"
#include "config/environments.h"
#include "env/environments.h"
#include "env/probe.h"
#include "results/read.h"
#include "util/fs.h"
#include "util/json_get.h"
#include "util/json_parse.h"
#include "util/say.h"
#include "util/ticker.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
struct Shim {
  std::string path;              // the workload file
  std::vector<KeptFile> kept;  // the user's files it loads, copied beside it (targets/)
  std::optional<WorkloadInfo> record;  // its workload record, as the worker made the file (none: asked later)
};

// The worker's record of the shim, from its result channel (--record-fd):
// never from its log, where the user's module may print anything.
Shim read_shim_record(const std::vector<std::string>& channel) {
  Shim shim;
  for (const auto& l : channel) {
    auto parsed = parse_json(l);
    const auto* doc = std::get_if<nlohmann::json>(&parsed);
    if (!doc || !doc->is_object()) continue;
    shim = {string_or(*doc, "shim", ""), {}, std::nullopt};
    if (doc->contains("kept") && (*doc)["kept"].is_array())
      for (const auto& k : (*doc)["kept"])
        shim.kept.push_back({string_or(k, "source", ""), string_or(k, "file", ""), string_or(k, "copy", "")});
    if (doc->contains("workload") && (*doc)["workload"].is_object()) {
      try {
        shim.record = workload_from_json((*doc)["workload"]);
      } catch (const std::exception&) {
        shim.record.reset();  // unreadable: the run asks for it as for any workload file (and says why)
      }
    }
  }
  return shim;
}

// The shim's file, written by the worker; its one-line error as a UserError.
Shim write_shim(const MeasureOptions& m, const std::string& python, const fs::path& dir) {
  make_dir_in(dir, "workloads", 0700);
  std::vector<std::string> argv = {python, "-m", "jitbench_worker.harness.target", "shim", m.target, "--keep", "../targets",
                                   "--out", (dir / "workloads").string(), "--record-fd", std::to_string(kResultFd)};
  for (const auto& [flag, value] : {std::pair{"--inputs", m.inputs}, {"--check", m.check}, {"--name", m.name}})
    if (!value.empty()) argv.insert(argv.end(), {flag, value});
  const fs::path log = dir / "shim.log";
  auto spec = worker_module_spawn(argv, resolve_worker_dir(), log, dir, 300);
  // The user's own modules are found where the user's Python finds them.
  if (const char* p = std::getenv("PYTHONPATH"); p && *p) spec.env_set["PYTHONPATH"] += std::string(":") + p;
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  if (p.kind == ExitKind::SpawnFailed)
    throw UserError(fmt::format("measure: cannot start Python '{}': {} (pass --python PATH)", python, p.spawn_error));
  const std::string line = last_line(log);
  if (p.kind != ExitKind::Exited || p.exit_code != 0)
    throw UserError(fmt::format("measure {}: {}", m.target, line.empty() ? "the worker could not load it" : line));
  Shim shim = read_shim_record(p.lines);
  if (shim.path.empty())
    throw UserError(fmt::format("measure {}: the worker wrote no workload file (its last line: {})", m.target,
                                line.empty() ? "none" : line));
  return shim;
}
// The interpreter that loads the user's function to write its shim. With
// --env the function is measured in pinned environments, and its module may
// import what only they hold (`bisect file.py:fn --package P`, where
// jitbench's own Python has no P): the first environment that builds (the
// cache keeps it for the run) loads it; with none, jitbench's Python does,
// and the run reports the environments as it always does.
std::string shim_python(const RunOptions& o, const fs::path& dir) {
  if (o.envs.empty()) return resolve_python(o.python);
  auto req = environment_request(o, dir);
  req.log_path = dir / "environment.log";
  PosixLauncher launcher;
  for (const auto& spec : selected_environments(Suite{}, o)) {  // refused here as the run would refuse them
    const Ticker ticker(fmt::format("environment {}: building or checking (uv), to load your function in it",
                                    spec.name), o.quiet);
    const auto b = build_environment(launcher, spec, req);
    if (b.ok) return b.python;
    // The run builds it again and reports it; here the user learns why their function loads elsewhere.
    say(stderr, "jitbench measure: environment {} did not build ({}): trying the next\n", spec.name, b.reason);
  }
  say(stderr, "jitbench measure: no --env environment built: your function is loaded in {}\n",
      resolve_python(o.python));
  return resolve_python(o.python);
}
}  // namespace

int cmd_measure(const MeasureOptions& m, const std::vector<std::string>& command) {
  require_utf8_cwd();  // before the worker resolves the target against it
  // A private directory for the shim (workloads/NAME.py) and the copies of the
  // user's files it loads (targets/), laid out as the run's inputs/ will keep
  // them; removed when the command ends.
  const PrivateDir dir("jitbench-measure");
  RunOptions o = m.run;
  Shim shim = write_shim(m, shim_python(o, dir.path()), dir.path());
  o.workload_paths = {shim.path};
  o.kept_files = std::move(shim.kept);
  if (shim.record) o.workload_records = {*shim.record};
  return cmd_run(o, command);
}

void add_measured_workload(const RunIndex& index, RunOptions& o) {
  if (index.options || index.command.size() < 2 || index.command[1] != "measure") return;
  for (const auto& in : index.inputs) {
    if (in.kind == "workload") o.workload_paths.push_back(in.source);
    if (in.kind == "target") o.kept_files.push_back({in.source, fs::path(in.path).filename().string(), ""});
  }
}

RunOptions recorded_run_options(const RunIndex& index) {
  if (index.options) return run_options(*index.options);
  RunOptions o = parse_run_command(index.command);  // an index before v5 (or a merged run's)
  add_measured_workload(index, o);
  return o;
}

}  // namespace jitbench
