#include "util/ticker.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "util/say.h"

namespace jitbench {

Ticker::Ticker(std::string what, bool quiet, double every_s) : what_(std::move(what)), every_s_(every_s) {
  if (quiet) return;
  tty_ = ::isatty(STDERR_FILENO) != 0;
  // JITBENCH_TICK_S: the interval off a terminal (tests shorten it).
  if (const char* t = std::getenv("JITBENCH_TICK_S"); t && *t && !tty_) every_s_ = std::max(0.05, std::atof(t));
  // Signals go to the main thread (its handlers stop the run): the ticker's thread starts with them blocked.
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &before);
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error&) {
    // No thread to be had: the work goes on without the ticking line.
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

Ticker::~Ticker() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (tty_) say(stderr, "\r\033[K");
}

void Ticker::loop() {
  const auto step = std::chrono::duration<double>(tty_ ? 1.0 : every_s_);
  std::unique_lock<std::mutex> lock(m_);
  while (!cv_.wait_for(lock, step, [this] { return stop_; })) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (tty_) say(stderr, "\r\033[Kjitbench: {} · elapsed {:.0f} s", what_, s);
    else say(stderr, "jitbench: {} · elapsed {:.0f} s\n", what_, s);
  }
}

}  // namespace jitbench
