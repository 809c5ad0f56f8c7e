// A user workload's record (throughput, ceiling, accuracy, cost) is known only
// to the Python file that defines it: before planning, jitbench asks the
// worker package to load each user workload's file and print its record.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "commands/run/run.h"
#include "env/probe.h"
#include "run/subprocess.h"
#include "util/fs.h"
#include "util/json_parse.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// Reading a workload file's record is an import, never a measurement: 120 s,
// or JITBENCH_WORKLOAD_LOAD_TIMEOUT_S (1 to 3600; a slow network file system).
int record_timeout_s() {
  const char* v = std::getenv("JITBENCH_WORKLOAD_LOAD_TIMEOUT_S");
  if (!v || !*v) return 120;
  char* end = nullptr;
  const long s = std::strtol(v, &end, 10);
  if (*end != '\0' || s < 1 || s > 3600)
    throw UserError(fmt::format("JITBENCH_WORKLOAD_LOAD_TIMEOUT_S='{}': give whole seconds from 1 to 3600", v));
  return static_cast<int>(s);
}
}  // namespace

Catalog load_user_workload_records(const std::string& python, Catalog catalog) {
  std::vector<WorkloadInfo> pending;
  for (const auto& w : catalog.workloads())
    if (!w->record_loaded) pending.push_back(*w);
  if (pending.empty()) return catalog;
  const PrivateDir dir("jitbench-records");
  PosixLauncher launcher;
  const int timeout_s = record_timeout_s();
  for (const auto& w : pending) {
    const fs::path log = dir.path() / (w.name + ".log");
    // The record comes on the result channel; the log holds what the file printed (and the error line).
    const auto p = launcher.launch(worker_module_spawn({python, "-m", "jitbench_worker.catalog", "--workload-file",
                                                        w.name, w.path, "--fd", std::to_string(kResultFd)},
                                                       resolve_worker_dir(), log, dir.path(), timeout_s));
    const std::string line = last_line(log);
    if (p.kind == ExitKind::SpawnFailed) {
      throw UserError(fmt::format("cannot start Python '{}' to read workload file {}: {} (pass --python PATH)", python,
                                  w.path, p.spawn_error));
    }
    // A file that breaks the contract keeps the placeholder record: its cases
    // run and fail with the worker's own message (docs/user-workloads.md).
    std::string problem;
    if (p.kind == ExitKind::TimedOut) {
      problem = fmt::format("loading it timed out after {} s (code at its top level that does not finish? "
                            "JITBENCH_WORKLOAD_LOAD_TIMEOUT_S gives it longer)", timeout_s);
    } else if (p.kind != ExitKind::Exited || p.exit_code != 0) {
      problem = line.empty() ? "the worker could not load it" : line;
    } else {
      auto parsed = parse_json(p.lines.empty() ? std::string() : p.lines.back());
      try {
        if (auto* e = std::get_if<std::string>(&parsed)) throw std::runtime_error(*e);
        auto record = workload_from_json(std::get<nlohmann::json>(parsed));
        if (record.name != w.name) throw std::runtime_error("the record names another workload");
        catalog = catalog.with_record(std::move(record));
      } catch (const std::exception& e) {
        problem = fmt::format("the worker printed no record it can read ({})", e.what());
      }
    }
    if (!problem.empty())
      say(stderr, "jitbench: workload file {}: {}; its cases will fail with the worker's reason\n", w.path, problem);
  }
  return catalog;
}

}  // namespace jitbench
