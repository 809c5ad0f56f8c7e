#include "util/ticker.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace jitbench {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Standard error sent to a file for the life of the object (the ticker writes to fd 2).
class StderrToFile {
 public:
  StderrToFile() {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
  }
  ~StderrToFile() {
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    fs::remove(path_);
  }
  std::string text() const {
    std::fflush(stderr);
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  fs::path path_ = fs::temp_directory_path() / ("jitbench-ticker-test-" + std::to_string(::getpid()));
  int saved_ = -1;
};

std::vector<std::string> ticker_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) lines.push_back(l);
  return lines;
}

int threads_in_process() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

TEST(Ticker, EachLineSaysWhatRunsAndTheSecondsElapsedAndStopsWhenDestroyed) {
  StderrToFile err;
  ::setenv("JITBENCH_TICK_S", "0.05", 1);
  const auto start = std::chrono::steady_clock::now();
  {
    const Ticker t("unpacking the archive", false);
    std::this_thread::sleep_for(2300ms);
  }
  // The ticker's life as this thread saw it, rounded as the ticker rounds (it started after `start`, so it
  // never counted more): on a loaded machine the sleep can overrun into another second.
  const auto lived_s =
      std::llround(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ::unsetenv("JITBENCH_TICK_S");
  const std::string at_stop = err.text();
  std::this_thread::sleep_for(300ms);  // six intervals: a thread still ticking would have written again
  EXPECT_EQ(err.text(), at_stop);
  const auto lines = ticker_lines(at_stop);
  ASSERT_GE(lines.size(), 3u) << at_stop;
  const std::regex line(R"(jitbench: unpacking the archive · elapsed (\d+) s)");
  std::vector<int> seconds;
  for (const auto& l : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, line)) << l;
    seconds.push_back(std::stoi(m[1]));
  }
  // The elapsed time is counted, not a fixed word: it grows, past two seconds, never past what the ticker lived.
  EXPECT_LT(seconds.front(), seconds.back()) << at_stop;
  EXPECT_GE(seconds.back(), 2) << at_stop;
  EXPECT_LE(seconds.back(), lived_s) << at_stop;
  EXPECT_TRUE(std::is_sorted(seconds.begin(), seconds.end())) << at_stop;
}

TEST(Ticker, QuietWritesNothing) {
  StderrToFile err;
  ::setenv("JITBENCH_TICK_S", "0.05", 1);
  { const Ticker t("unpacking", true); std::this_thread::sleep_for(300ms); }
  ::unsetenv("JITBENCH_TICK_S");
  EXPECT_EQ(err.text(), "");
}

TEST(Ticker, StopsAtOnceWithoutWaitingForItsNextLine) {
  StderrToFile err;
  const auto start = std::chrono::steady_clock::now();
  { const Ticker t("unpacking", false, 600); std::this_thread::sleep_for(50ms); }
  // Not the 600 s interval, nor a poll of many seconds: 10 s is 200 times the 50 ms it slept, room for a loaded
  // machine, and far below any wait the ticker could be doing.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(err.text(), "");  // the first line was 600 s away
}

// A process signal (Ctrl-C: the main thread's handlers stop the run) never
// lands in the ticker's thread: with the main thread blocking it for a moment,
// it waits for the main thread instead of being handled by the ticker's.
std::atomic<long> g_ticker_test_handled_by{0};
void ticker_test_record_thread(int) { g_ticker_test_handled_by = ::syscall(SYS_gettid); }

[[noreturn]] void ticker_test_signal_child() {
  ::unsetenv("JITBENCH_TICK_S");
  ::signal(SIGUSR1, ticker_test_record_thread);
  const Ticker t("unpacking", false, 600);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ::pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  ::kill(::getpid(), SIGUSR1);
  std::this_thread::sleep_for(200ms);  // a thread that took signals would have handled it by now
  const bool waited = g_ticker_test_handled_by == 0;
  ::pthread_sigmask(SIG_UNBLOCK, &usr1, nullptr);
  std::_Exit(waited && g_ticker_test_handled_by == ::syscall(SYS_gettid) ? 0 : 1);
}

TEST(TickerDeathTest, ItsThreadTakesNoSignal) {
  EXPECT_EXIT(ticker_test_signal_child(), ::testing::ExitedWithCode(0), "");
}

// No thread to be had (here: no address space for its stack): the work goes on
// without the line, and the ticker's end does not wait for a thread that never ran.
[[noreturn]] void ticker_test_no_thread_child() {
  ::setenv("JITBENCH_TICK_S", "0.05", 1);
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlimit as{static_cast<rlim_t>(pages * ::sysconf(_SC_PAGESIZE) + (2 << 20)), RLIM_INFINITY};
  ::setrlimit(RLIMIT_AS, &as);
  int threads = 0;
  {
    const Ticker t("unpacking", false);
    threads = threads_in_process();
  }
  std::fputs("went on\n", stderr);
  std::_Exit(threads == 1 ? 0 : 1);  // 2: the limit let the thread start, and this test proves nothing
}

TEST(TickerDeathTest, WithoutAThreadTheWorkGoesOnSilently) {
  EXPECT_EXIT(ticker_test_no_thread_child(), ::testing::ExitedWithCode(0), "^went on\n$");
}

// Standard error gone (a closed pipe, SIGPIPE ignored as jitbench's main does):
// the ticker's writes go quiet instead of ending the process.
[[noreturn]] void ticker_test_closed_stderr_child() {
  ::signal(SIGPIPE, SIG_IGN);
  ::setenv("JITBENCH_TICK_S", "0.05", 1);
  int p[2];
  if (::pipe(p) != 0) std::_Exit(3);
  ::close(p[0]);
  ::dup2(p[1], STDERR_FILENO);
  {
    const Ticker t("unpacking", false);
    std::this_thread::sleep_for(300ms);
  }
  std::_Exit(0);
}

TEST(TickerDeathTest, AClosedStderrEndsNothing) {
  EXPECT_EXIT(ticker_test_closed_stderr_child(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace jitbench
