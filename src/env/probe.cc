#include "env/probe.h"

#include <fmt/format.h>

#include "run/protocol.h"

namespace jitbench {

SpawnSpec worker_module_spawn(std::vector<std::string> argv, const std::filesystem::path& worker_dir,
                              const std::filesystem::path& log_path, const std::filesystem::path& log_root,
                              double timeout_s) {
  SpawnSpec spec;
  spec.argv = std::move(argv);
  spec.env_set["PYTHONPATH"] = worker_dir.string();
  spec.env_set["PYTHONUNBUFFERED"] = "1";
  spec.log_path = log_path;
  spec.log_root = log_root;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  return spec;
}

std::variant<nlohmann::json, std::string> probe_worker(ProcessLauncher& launcher, const ProbeRequest& req) {
  std::vector<std::string> argv = {req.python, "-m", "jitbench_worker", "probe", "--fd", std::to_string(kResultFd)};
  if (req.check_devices) argv.push_back("--check-devices");
  const auto p = launcher.launch(worker_module_spawn(argv, req.worker_dir, req.log_path, req.log_root, req.timeout_s));
  if (p.kind == ExitKind::SpawnFailed)
    return fmt::format("cannot start Python '{}': {} (pass --python PATH or run scripts/setup.sh)", req.python,
                       p.spawn_error);
  for (const auto& line : p.lines) {
    auto m = parse_message(line);
    if (auto* msg = std::get_if<Message>(&m); msg && msg->type == MessageType::Probe) return msg->body;
  }
  return fmt::format("the worker probe with '{}' gave no answer ({}, exit code {}; see {})", req.python,
                     to_string(p.kind), p.exit_code, req.log_path.string());
}

}  // namespace jitbench
