#include "env/counting_tools.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "run/subprocess.h"
#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
bool fake_pmu() {
  const char* v = std::getenv("JITBENCH_TEST_FAKE_PMU");
  return v && std::string(v) == "1";
}

struct Captured {
  bool ran = false;  // started and exited
  int rc = -1;
  std::string text;  // stdout and stderr together
};

// A short tool's output (valgrind --version, setarch ... true), through a
// temporary file: the launcher writes what a process prints to a log.
Captured capture(const std::vector<std::string>& argv) {
  std::optional<PrivateDir> dir;  // the door's: made 0700, removed with what is in it
  try {
    dir.emplace("jitbench-probe");
  } catch (const WriteError&) {
    return {};
  }
  SpawnSpec spec;
  spec.argv = argv;
  spec.log_root = dir->path();
  spec.log_path = dir->path() / "output.log";
  spec.timeout = std::chrono::seconds(30);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  Captured out;
  out.ran = p.kind == ExitKind::Exited;
  out.rc = p.exit_code;
  try {
    out.text = read_file_in(dir->path(), "output.log");
  } catch (const std::exception&) {
  }
  while (!out.text.empty() && (out.text.back() == '\n' || out.text.back() == ' ')) out.text.pop_back();
  return out;
}

std::string machine_name() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.machine) : std::string("x86_64");
}

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.release) : std::string("unknown");
}

// setarch ARCH -R: the process and its children without address randomisation,
// where the kernel lets this process change its personality (a container's
// seccomp profile may not).
void aslr_control(CountingSetup& s) {
  std::ifstream in("/proc/sys/kernel/randomize_va_space");
  int level = -1;
  if (in >> level && level == 0) {
    s.aslr = "off: randomize_va_space = 0 on this machine";
    return;
  }
  const std::vector<std::string> cmd = {"setarch", machine_name(), "-R"};
  auto probe = cmd;
  probe.push_back("true");
  const auto p = capture(probe);
  if (p.ran && p.rc == 0) {
    s.aslr_off = cmd;
    s.aslr = fmt::format("off: each counting process started under `setarch {} -R` (personality ADDR_NO_RANDOMIZE)",
                         machine_name());
  } else {
    s.aslr = fmt::format("on: `setarch {} -R` was refused here ({}); each process lays out its memory anew",
                         machine_name(), p.text.empty() ? "setarch not found" : p.text);
  }
}

// valgrind's path and version, or why it cannot count here.
std::string find_valgrind(CountingSetup& s) {
  const char* env = std::getenv("JITBENCH_VALGRIND");
  s.valgrind = env && *env ? env : "valgrind";
  const auto v = capture({s.valgrind, "--version"});
  if (!v.ran || v.rc != 0 || !v.text.starts_with("valgrind-"))
    return fmt::format("valgrind was not found ({}): install it (Debian: apt-get install valgrind) to count "
                       "instructions where no hardware counter opens",
                       s.valgrind);
  s.tool_version = v.text;
  return "";
}
}  // namespace

std::string hardware_counter_unavailable() {
  if (fake_pmu()) return "";
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return "";
  }
  const int err = errno;
  return fmt::format("perf_event_open for user-space instructions failed: {}{}", std::strerror(err),
                     err == ENOENT ? " (no hardware counter here: a VM without a virtual PMU)"
                     : err == EACCES || err == EPERM ? " (perf_event_paranoid forbids it)"
                                                     : "");
}

std::variant<CountingSetup, std::string> resolve_counting(const CountingRequest& req) {
  CountingSetup s;
  s.enabled = true;
  s.runs = req.runs;
  s.jobs = req.jobs;
  s.library = req.library;
  std::error_code ec;
  if (!fs::is_regular_file(s.library, ec))
    return fmt::format("the counting library {} is not there: build it with the native worker (cmake --build build "
                       "--target jitbench-count)", s.library.string());
  if (fake_pmu()) s.fake_pmu = "1";
  const auto hw = hardware_counter_unavailable();
  if (req.forced == kCountSourceHardware && !hw.empty())
    return fmt::format("--count instructions:hardware: {}; count under valgrind instead (--count instructions)", hw);
  if (req.forced == kCountSourceHardware || (req.forced.empty() && hw.empty())) {
    s.source = kCountSourceHardware;
    s.chosen = req.forced.empty() ? "automatic: a hardware instruction counter opens here" : "asked for (:hardware)";
    s.tool_version = "perf_event_open (Linux " + kernel_release() + ")";
  } else {
    if (auto why = find_valgrind(s); !why.empty()) {
      if (req.forced.empty()) return fmt::format("--count instructions: no hardware counter ({}), and {}", hw, why);
      return "--count instructions:valgrind: " + why;
    }
    s.source = kCountSourceValgrind;
    s.chosen = req.forced.empty() ? "automatic: no hardware counter here (" + hw + ")" : "asked for (:valgrind)";
  }
  aslr_control(s);
  return s;
}

}  // namespace jitbench
