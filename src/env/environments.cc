#include "env/environments.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include "env/probe.h"
#include "run/protocol.h"
#include "util/fs.h"
#include "util/json_get.h"
#include "util/json_parse.h"

namespace jitbench {
namespace fs = std::filesystem;

std::variant<fs::path, std::string> environment_cache_root() {
  // Absolute: the environment's record names its interpreter by this path, read from any directory later.
  if (const char* e = std::getenv("JITBENCH_ENV_CACHE"); e && *e) return fs::absolute(e).lexically_normal();
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::absolute(fs::path(x) / "jitbench" / "envs");
  if (const char* home = std::getenv("HOME"); home && *home) return fs::absolute(fs::path(home) / ".cache" / "jitbench" / "envs");
  // Never a shared place such as /tmp, where anyone could have made the directory first.
  return std::string("no place for the environment cache: HOME and XDG_CACHE_HOME are unset; set JITBENCH_ENV_CACHE "
                     "to a directory of yours");
}

namespace {
// The spec for the builder, in a file of its own (argv would show it to `ps`,
// and it may be long), in a private directory removed with it.
void write_spec(const EnvironmentSpec& spec, const EnvironmentRequest& req, const PrivateDir& dir) {
  // A path to an interpreter is absolute before it is hashed (a version, "3.11", is not a path).
  const std::string python = spec.python.find('/') != std::string::npos
                                 ? fs::absolute(spec.python).lexically_normal().string() : spec.python;
  nlohmann::json j = {{"name", spec.name},           {"requirements", spec.requirements},
                      {"python", python},            {"cache_root", req.cache_root.string()},
                      {"find_links", req.find_links}, {"no_index", req.no_index}};
  write_file_in(dir.path(), "spec.json", dump_json(j));
}
}  // namespace

EnvironmentBuild build_environment(ProcessLauncher& launcher, const EnvironmentSpec& spec,
                                   const EnvironmentRequest& req) {
  EnvironmentBuild b;
  b.name = spec.name;
  b.variables = spec.variables;
  const PrivateDir spec_dir("jitbench-env-spec");
  write_spec(spec, req, spec_dir);
  const auto p = launcher.launch(worker_module_spawn(
      {req.bootstrap_python, "-m", "jitbench_worker.harness.envs", "build", "--fd", std::to_string(kResultFd), "--spec",
       (spec_dir.path() / "spec.json").string()},
      req.worker_dir, req.log_path, req.log_root, req.timeout_s));
  for (const auto& line : p.lines) {
    auto m = parse_message(line);
    auto* msg = std::get_if<Message>(&m);
    if (!msg) continue;
    if (msg->type == MessageType::Environment) {
      b.record = msg->body;
      b.record.erase("type");
      b.python = string_or(msg->body, "python", "");
      b.ok = !b.python.empty();
      if (!b.ok) b.reason = "environment_unavailable: the builder named no interpreter";
      return b;
    }
    if (msg->type == MessageType::Skip) {
      b.reason = string_or(msg->body, "reason", "environment_unavailable: the builder gave no reason");
      return b;
    }
    if (msg->type == MessageType::Error) {  // the builder failed in a way it did not foresee: its own words
      b.reason = "environment_unavailable: " + string_or(msg->body, "message", "the builder failed without a message");
      return b;
    }
  }
  b.reason = fmt::format("environment_unavailable: the environment builder gave no answer ({}, exit code {}; see {})",
                         to_string(p.kind), p.exit_code, req.log_path.string());
  return b;
}

std::optional<std::map<std::string, std::optional<std::string>>> current_environment_hashes(
    ProcessLauncher& launcher, const EnvironmentRequest& req) {
  const auto p = launcher.launch(worker_module_spawn({req.bootstrap_python, "-m", "jitbench_worker.harness.envs", "hashes",
                                                      "--fd", std::to_string(kResultFd), "--root",
                                                      req.cache_root.string()},
                                                     req.worker_dir, req.log_path, req.log_root, req.timeout_s));
  for (const auto& line : p.lines) {
    auto m = parse_message(line);
    auto* msg = std::get_if<Message>(&m);
    if (!msg || msg->type != MessageType::Hashes) continue;
    std::map<std::string, std::optional<std::string>> out;
    for (const auto& [dir, h] : msg->body["hashes"].items())
      out[dir] = h.is_string() ? std::optional<std::string>(h.get<std::string>()) : std::nullopt;
    return out;
  }
  return std::nullopt;
}

}  // namespace jitbench
