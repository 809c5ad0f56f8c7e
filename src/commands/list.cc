#include <fmt/format.h>

#include <iostream>
#include <unistd.h>

#include "commands/commands.h"
#include "config/catalog.h"
#include "env/probe.h"
#include "util/fs.h"
#include "util/say.h"

namespace jitbench {

int cmd_list(const ListOptions& opts) {
  PosixLauncher launcher;
  const PrivateDir tmp("jitbench-list");  // the probe's log, removed with it
  ProbeRequest req{resolve_python(opts.python), resolve_worker_dir(), tmp.path() / "probe.log"};
  req.log_root = tmp.path();
  req.check_devices = opts.check_devices;
  auto probe = probe_worker(launcher, req);
  if (auto* err = std::get_if<std::string>(&probe))
    throw UserError(fmt::format("{} (its last line: {})", *err, last_line(req.log_path)));
  const auto& p = std::get<nlohmann::json>(probe);
  if (opts.json) {
    std::cout << p.dump(2) << "\n";
    return 0;
  }
  say(stdout, "Python {} ({})\n\nBackends:\n", p.value("python", "?"), p.value("executable", "?"));
  const Catalog& catalog = Catalog::builtin();  // `list` takes no user workload
  for (const auto& bp : catalog.backends()) {
    const BackendInfo& b = *bp;
    // A Python backend as the probe found it; a native one by its executable.
    const auto& probed = p.at("backends");
    bool ok = false;
    std::string why;
    if (b.worker != WorkerKind::Python) {
      const auto exe = resolve_native_worker(b.worker);
      ok = ::access(exe.c_str(), X_OK) == 0;
      const auto fix = b.worker == WorkerKind::NativeCuda ? "install the CUDA toolkit (nvcc), then scripts/setup.sh"
                                                          : "run scripts/setup.sh";
      if (!ok) why = fmt::format("{} is not built ({})", exe.string(), fix);
    } else if (probed.contains(b.name)) {
      ok = probed.at(b.name).value("available", false);
      why = probed.at(b.name).value("reason", "");
    }
    if (b.wants_gpu && ok && !opts.check_devices) why = "package present; GPU not checked (use --check-devices)";
    say(stdout, "  {:<20} {:<10} {}{}\n", b.name, ok ? "available" : "missing", b.summary,
        why.empty() ? "" : fmt::format("  [{}]", why));
  }
  say(stdout, "\nWorkloads:\n");
  for (const auto& w : catalog.workloads()) say(stdout, "  {:<24} {}\n", w->name, w->summary);
  say(stdout, "\nCache policies:\n");
  for (const auto& c : cache_policies()) say(stdout, "  {:<14} {}\n", c.name, c.summary);
  return 0;
}

}  // namespace jitbench
