#include "util/interrupt.h"

#include <signal.h>

#include <atomic>

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
}  // namespace jitbench
