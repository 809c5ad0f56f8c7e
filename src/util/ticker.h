#pragma once
// A progress line for a step that runs for seconds without a word (an
// environment being built, publish drawing its figures): "jitbench: <what> ·
// elapsed 12 s" on stderr, rewritten in place every second on a terminal,
// else one line every `every_s` seconds; nothing when quiet. Stops, and
// clears its line, when destroyed.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace jitbench {
class Ticker {
 public:
  Ticker(std::string what, bool quiet, double every_s = 10);
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

 private:
  void loop();
  std::string what_;
  bool tty_ = false;
  double every_s_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::thread thread_;
};
}  // namespace jitbench
