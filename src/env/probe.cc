#include "env/probe.h"

#include <fmt/format.h>

#include "run/protocol.h"

namespace jitbench {

std::variant<nlohmann::json, std::string> probe_worker(ProcessLauncher& launcher, const ProbeRequest& req) {
  SpawnSpec spec;
  spec.argv = {req.python, "-m", "jitbench_worker", "probe", "--fd", std::to_string(kResultFd)};
  if (req.check_devices) spec.argv.push_back("--check-devices");
  spec.env_set["PYTHONPATH"] = req.worker_dir.string();
  spec.env_set["PYTHONUNBUFFERED"] = "1";
  spec.log_path = req.log_path;
  spec.log_root = req.log_root;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(req.timeout_s * 1000));
  const auto p = launcher.launch(spec);
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
