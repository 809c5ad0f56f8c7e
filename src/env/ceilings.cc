#include "env/ceilings.h"

#include <fmt/format.h>
#include <unistd.h>

#include "run/protocol.h"
#include "util/json_get.h"

namespace jitbench {

nlohmann::json ceilings_not_measured(const std::string& reason) { return {{"measured", false}, {"reason", reason}}; }

namespace {
// What a machine can do: a GEMM between 1 MFLOP/s and 1 EFLOP/s, a copy between
// 1 MB/s and 1 PB/s. A figure outside (5e-324 GFLOP/s) is no measurement, and
// every fraction computed from it would be infinite.
constexpr double kLowest = 1e-3, kHighest = 1e9;

std::string implausible_figure(const nlohmann::json& c) {
  if (!c.is_object()) return "";
  for (const auto& [k, v] : c.items()) {
    if (!k.ends_with("_gflops") && !k.ends_with("_gbps")) continue;
    if (!v.is_number()) continue;  // the schema check names it
    const double x = v.get<double>();
    if (!(x >= kLowest && x <= kHighest))
      return fmt::format("{} = {:g} is outside what a machine can do ({:g} to {:g})", k, x, kLowest, kHighest);
  }
  return "";
}
}  // namespace

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
      const auto& c = msg->body["ceilings"];
      if (auto why = implausible_figure(c); !why.empty() && bool_or(c, "measured", false))
        return ceilings_not_measured("the ceilings worker's answer is not believed: " + why);
      return c;
    }
  }
  return ceilings_not_measured(fmt::format("the ceilings micro-benchmark gave no answer ({}, exit code {}; see {})",
                                           to_string(p.kind), p.exit_code, req.log_path.string()));
}

}  // namespace jitbench
