#include "util/interrupt.h"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace jitbench {
namespace {
std::atomic<int> g_signal{0};
extern "C" void on_signal(int sig) { g_signal.store(sig); }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR and sees the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // a closed terminal or ssh session: same as SIGTERM
}

bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }

void kill_point(const char* name) {
  // JITBENCH_TEST_KILL_AT=POINT[:N]: the N-th time (default the first) this process passes POINT.
  static std::atomic<int> passed{0};  // launch_all's threads pass process_started too
  const char* at = std::getenv("JITBENCH_TEST_KILL_AT");
  if (!at || !*at) return;
  const std::string spec = at;
  const auto colon = spec.find(':');
  if (spec.substr(0, colon) != name) return;
  const int nth = colon == std::string::npos ? 1 : std::atoi(spec.c_str() + colon + 1);
  if (++passed == nth) ::raise(SIGKILL);
}
}  // namespace jitbench
