// `jitbench doctor`: the machine's facts (env/host.h) judged for benchmarking
// (env/doctor.h), printed as a table or JSON. Read-only: nothing is changed.
#include <fmt/format.h>

#include <filesystem>

#include "commands/commands.h"
#include "env/doctor.h"
#include "env/host.h"
#include "export/json/doctor_json.h"
#include "export/json/json_util.h"
#include "run/case_runner.h"
#include "run/worker_env.h"
#include "util/clock.h"
#include "util/say.h"

namespace jitbench {
namespace {
std::string doctor_text(const HostFacts& host, const std::vector<Finding>& findings, const std::string& root) {
  std::string out = fmt::format("jitbench doctor: {} · {} · kernel {}{}\n\n", host.hostname,
                                host.cpu_model.empty() ? "unknown CPU" : host.cpu_model, host.kernel,
                                root == "/" ? "" : " · read below " + root);
  int counts[4] = {0, 0, 0, 0};
  for (const auto& f : findings) {
    ++counts[static_cast<int>(f.level)];
    out += fmt::format("{:<13} {:<14} {}\n", to_string(f.level), f.check, f.found);
    out += fmt::format("{:<28} {}\n", "", f.meaning);
    if (!f.action.empty()) out += fmt::format("{:<28} do: {}\n", "", f.action);
  }
  out += fmt::format("\n{} checks: {} ok, {} note, {} warn, {} not reported. Nothing was changed; environment.json "
                     "of every run records the same findings.\n",
                     findings.size(), counts[0], counts[1], counts[2], counts[3]);
  return out;
}
}  // namespace

int cmd_doctor(const DoctorOptions& o) {
  std::error_code ec;
  if (!std::filesystem::is_directory(o.root, ec))
    throw UserError(fmt::format("doctor --root '{}': not a directory; give the directory /proc and /sys lie below "
                                "(default /)", o.root));
  HostReadOptions read;
  read.root = o.root;
  read.sample_ms = static_cast<int>(o.sample_s * 1000);
  read.gpus = o.root == "/";
  read.env = worker_environment(WorkerSetup{}, Case{});  // the threads the workers would start, not jitbench's own
  const HostFacts host = read_host_facts(read);
  const auto findings = machine_findings(host);
  if (o.json) say(stdout, "{}", json_text(doctor_json(host, findings, o.root, utc_now())));
  else say(stdout, "{}", doctor_text(host, findings, o.root));
  if (o.strict && any_warn(findings)) {
    say(stderr, "jitbench: doctor --strict: a check warns (see above); fix it or drop --strict\n");
    return kExitDoctorWarn;
  }
  return 0;
}

}  // namespace jitbench
