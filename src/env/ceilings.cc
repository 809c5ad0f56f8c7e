#include "env/ceilings.h"

#include <fmt/format.h>
#include <unistd.h>

#include "run/protocol.h"

namespace jitbench {

nlohmann::json ceilings_not_measured(const std::string& reason) { return {{"measured", false}, {"reason", reason}}; }

nlohmann::json measure_ceilings(ProcessLauncher& launcher, const CeilingsRequest& req) {
  if (::access(req.worker.c_str(), X_OK) != 0)
    return ceilings_not_measured(fmt::format("{} is not built", req.worker.string()));
  SpawnSpec spec;
  spec.argv = {req.worker.string(), "ceilings", "--fd", std::to_string(kResultFd)};
  spec.env_set = req.env;
  spec.log_path = req.log_path;
  spec.log_root = req.log_root;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(req.timeout_s * 1000));
  const auto p = launcher.launch(spec);
  for (const auto& line : p.lines) {
    auto m = parse_message(line);
    if (auto* msg = std::get_if<Message>(&m); msg && msg->type == MessageType::Ceilings) {
      if (p.kind != ExitKind::Exited || p.exit_code != 0) break;
      return msg->body["ceilings"];
    }
  }
  return ceilings_not_measured(fmt::format("the ceilings micro-benchmark gave no answer ({}, exit code {}; see {})",
                                           to_string(p.kind), p.exit_code, req.log_path.string()));
}

}  // namespace jitbench
