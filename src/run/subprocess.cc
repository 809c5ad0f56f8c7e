#include "run/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "run/protocol.h"
#include "util/fs.h"
#include "util/interrupt.h"

extern char** environ;

namespace jitbench {

const char* to_string(ExitKind k) {
  switch (k) {
    case ExitKind::Exited: return "exited";
    case ExitKind::Signaled: return "signaled";
    case ExitKind::TimedOut: return "timed_out";
    case ExitKind::SpawnFailed: return "spawn_failed";
  }
  return "?";
}

namespace {

std::vector<std::string> build_env(const SpawnSpec& spec) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& k : spec.env_unset) env.erase(k);
  for (const auto& [k, v] : spec.env_set) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string errno_text(const char* what, int err) { return std::string(what) + ": " + std::strerror(err); }

void kill_group(pid_t pid, int sig) {
  if (::kill(-pid, sig) != 0 && errno == ESRCH) ::kill(pid, sig);
}

// Waits for pid until the deadline; returns true when reaped.
bool reap_until(pid_t pid, long long deadline_ns, int* status, rusage* ru) {
  for (;;) {
    const pid_t r = ::wait4(pid, status, WNOHANG, ru);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // nothing left to reap
    if (monotonic_ns() >= deadline_ns) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}
}  // namespace

namespace {
// The log, opened here so that no link below the log root is followed.
int open_log(const SpawnSpec& spec) {
  if (!spec.log_root.empty()) return open_file_in(spec.log_root, spec.log_path.lexically_relative(spec.log_root));
  return open_file_in(spec.log_path.parent_path(), spec.log_path.filename());
}

// What the child tells spawn() on its close-on-exec pipe: its peak RSS just
// before exec (err 0), and an errno when a step or the exec fails.
struct ChildReport {
  long rss_kib;
  int err;
};

void send_report(int err_fd, ChildReport r) {
  while (::write(err_fd, &r, sizeof r) < 0 && errno == EINTR) {
  }
}

// The child's exit when a step before exec fails: errno to err_fd, exit 127.
[[noreturn]] void report_and_exit(int err_fd, int err) {
  send_report(err_fd, {0, err});
  ::_exit(127);
}

// The descriptors a worker is given: its log, the result channel, the exec-error pipe.
struct ChildFds {
  int log, result, err;
};

// The child's side of spawn(), between fork and exec: async-signal-safe calls
// only. Its own process group, pinned to `cpus` when given (a CPU the kernel
// refuses is the spawn's error), SIGKILL when jitbench dies (PR_SET_PDEATHSIG,
// checked against a parent that died before it took effect), stdin from
// /dev/null, stdout+stderr to the log, the pipe's write end on kResultFd,
// default signal handling and an empty mask. An exec that fails reports its
// errno on err_fd (close-on-exec: a successful exec closes it after the
// report of the RSS the child held before exec).
[[noreturn]] void become_worker(const SpawnSpec& spec, pid_t parent, ChildFds fd, const cpu_set_t* cpus, char** argv,
                                char** envp) {
  const int err_fd = fd.err;
  const auto die = [err_fd](int err) { report_and_exit(err_fd, err); };
  if (::setpgid(0, 0) != 0) die(errno);
  if (cpus && ::sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0) die(errno);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die(errno);
  if (::getppid() != parent) ::_exit(127);  // jitbench is gone already
  // The case's shared reference (kSharedFd) moved out of the way of the dup2s below first.
  const int shared = spec.shared_fd >= 0 ? ::fcntl(spec.shared_fd, F_DUPFD_CLOEXEC, 16) : -1;
  if (spec.shared_fd >= 0 && shared < 0) die(errno);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull < 0 || ::dup2(devnull, 0) < 0 || ::dup2(fd.log, 1) < 0 || ::dup2(fd.log, 2) < 0 ||
      ::dup2(fd.result, kResultFd) < 0 || (shared >= 0 && ::dup2(shared, kSharedFd) < 0))
    die(errno);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP}) ::sigaction(sig, &dfl, nullptr);
  sigset_t empty;
  sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  // The copy of jitbench this process still is: the kernel folds its peak into
  // the worker's wait4 ru_maxrss at exec (ProcessResult::pre_exec_rss_kib).
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  send_report(err_fd, {self.ru_maxrss, 0});
  if (spec.argv[0].find('/') != std::string::npos) ::execve(argv[0], argv, envp);
  else ::execvpe(argv[0], argv, envp);
  report_and_exit(err_fd, errno);
}

// The child's reports on the exec-error pipe, read until the exec closes it
// (each report whole: < PIPE_BUF), then fd closed: the RSS it held before its
// exec into res.pre_exec_rss_kib; returns the errno of a step that failed, 0
// when the exec succeeded.
int read_child_reports(int fd, ProcessResult& res) {
  int exec_err = 0;
  ChildReport report{};
  ssize_t n;
  while ((n = ::read(fd, &report, sizeof report)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof report)) break;
    if (report.err != 0) exec_err = report.err;
    else res.pre_exec_rss_kib = report.rss_kib;
  }
  ::close(fd);
  return exec_err;
}

// fork + exec of the worker (become_worker); returns the pid, or 0 with
// res.spawn_error set; closes the write end either way. Not posix_spawn: it
// cannot ask the kernel to end the child with jitbench.
pid_t spawn(const SpawnSpec& spec, const std::vector<int>& pin, int pipefd[2], ProcessResult& res) {
  int log_fd = -1;
  try {
    log_fd = open_log(spec);
  } catch (const WriteError& e) {
    ::close(pipefd[1]);
    if (e.link_refused()) {  // a link planted where the log goes stops the command, not one run
      ::close(pipefd[0]);
      throw;
    }
    res.spawn_error = e.what();
    return 0;
  }
  int errpipe[2];
  if (::pipe2(errpipe, O_CLOEXEC) != 0) {
    res.spawn_error = errno_text("pipe2", errno);
    ::close(pipefd[1]);
    ::close(log_fd);
    return 0;
  }
  // Everything the child needs is built before the fork.
  auto argv_s = spec.argv;
  auto env_s = build_env(spec);
  auto argv = c_strings(argv_s);
  auto envp = c_strings(env_s);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (const int c : pin) CPU_SET(c, &cpus);
  const pid_t parent = ::getpid();
  res.spawn_ns = monotonic_ns();
  const pid_t pid = ::fork();
  if (pid == 0)
    become_worker(spec, parent, {log_fd, pipefd[1], errpipe[1]}, pin.empty() ? nullptr : &cpus, argv.data(),
                  envp.data());
  const int fork_err = errno;
  ::close(errpipe[1]);
  ::close(pipefd[1]);
  ::close(log_fd);
  if (pid < 0) {
    ::close(errpipe[0]);
    res.spawn_error = errno_text("fork", fork_err);
    return 0;
  }
  if (const int exec_err = read_child_reports(errpipe[0], res); exec_err != 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    res.spawn_error = errno_text(spec.argv[0].c_str(), exec_err);
    res.pre_exec_rss_kib = 0;  // no worker ran: nothing to tell its peak from
    return 0;
  }
  return pid;
}

// True once pid has exited; it stays unreaped (WNOWAIT) for reap().
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Reads the result channel until EOF or the worker's exit (whatever a child
// of it still holds open), the deadline or an interrupt; returns true when the
// run must be stopped (timed out or interrupted).
bool read_channel(int fd, pid_t pid, long long deadline, ProcessResult& res) {
  LineSplitter splitter;
  std::array<char, 65536> buf{};
  bool stop = false;
  bool exited = false;
  // Readable when the worker exits (Linux >= 5.3): poll sleeps until output or
  // exit. Without one, the exit is polled for every 50 ms.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  for (;;) {
    if (interrupted()) {
      res.interrupted = true;
      stop = true;  // same path as a timeout: kill the group, reap
      break;
    }
    const long long left_ms = (deadline - monotonic_ns()) / 1'000'000;
    if (left_ms <= 0) {
      stop = true;
      break;
    }
    pollfd pfd[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int wait_ms = exited ? 0 : static_cast<int>(std::min<long long>(left_ms, pidfd >= 0 ? 1000 : 50));
    if (::poll(pfd, pidfd >= 0 ? 2 : 1, wait_ms) < 0) continue;  // EINTR
    if (pidfd >= 0 && (pfd[1].revents & POLLIN)) exited = true;
    if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      // Once the worker has exited, only what is already in the pipe is its.
      if (exited) break;
      if (pidfd < 0) exited = has_exited(pid);
      continue;
    }
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: every holder of the write end has closed it
    splitter.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  if (pidfd >= 0) ::close(pidfd);
  res.lines = splitter.take_lines();
  res.trailing = splitter.pending();
  res.channel_overflow = splitter.overflowed();
  return stop;
}

// The pids of this process's children (every thread's list).
std::vector<pid_t> own_children() {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(task.path() / "children");
    for (long pid = 0; in >> pid;) out.push_back(static_cast<pid_t>(pid));
  }
  return out;
}

double cpu_seconds(const rusage& ru) {
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Kills and reaps every child left: with PR_SET_CHILD_SUBREAPER they are the
// worker's descendants that escaped its process group. Timed workers run one
// at a time, so no other child exists then; counting processes run several at
// a time (launch_all), which calls this once all of them are reaped. Returns
// the CPU time they used.
double end_orphans() {
  double cpu_s = 0;
  for (int round = 0; round < 50; ++round) {
    const auto kids = own_children();
    if (kids.empty()) return cpu_s;
    for (const pid_t k : kids) {
      ::kill(-k, SIGKILL);  // its own group when it called setsid
      ::kill(k, SIGKILL);
    }
    for (const pid_t k : kids) {
      int st = 0;
      rusage ru{};
      if (reap_until(k, monotonic_ns() + 1'000'000'000LL, &st, &ru)) cpu_s += cpu_seconds(ru);
    }
  }
  return cpu_s;
}

// Waits for the worker (killing its group when stop or past the deadline),
// then fills the exit and rusage fields.
void reap(pid_t pid, long long deadline, bool stop, ProcessResult& res, bool orphans) {
  int status = 0;
  rusage ru{};
  bool timed_out = stop;
  if (!timed_out && !reap_until(pid, deadline, &status, &ru)) timed_out = true;
  if (!timed_out && interrupted()) res.interrupted = true;
  if (timed_out) {
    // SIGTERM lets a framework flush its logs; SIGKILL is the guarantee.
    kill_group(pid, SIGTERM);
    if (!reap_until(pid, monotonic_ns() + 2'000'000'000LL, &status, &ru)) {
      kill_group(pid, SIGKILL);
      reap_until(pid, monotonic_ns() + 10'000'000'000LL, &status, &ru);
    }
  }
  // Stragglers the worker started (compiler helpers, a workload's forks) must
  // not outlive it: its group, then whatever left the group and was
  // reparented to this subreaper.
  ::kill(-pid, SIGKILL);
  if (orphans) res.orphan_cpu_s = end_orphans();
  res.wall_s = static_cast<double>(monotonic_ns() - res.spawn_ns) / 1e9;
  res.max_rss_kib = ru.ru_maxrss;
  res.user_s = static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6;
  res.sys_s = static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6;
  res.nivcsw = ru.ru_nivcsw;
  if (timed_out) {
    res.kind = ExitKind::TimedOut;
    res.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  } else if (WIFSIGNALED(status)) {
    res.kind = ExitKind::Signaled;
    res.signal = WTERMSIG(status);
  } else {
    res.kind = ExitKind::Exited;
    res.exit_code = WEXITSTATUS(status);
  }
}
}  // namespace

PosixLauncher::PosixLauncher(std::vector<int> cpus, MachineSampler& sampler)
    : cpus_(std::move(cpus)), sampler_(sampler) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

std::vector<ProcessResult> ProcessLauncher::launch_all(const std::vector<SpawnSpec>& specs, int) {
  std::vector<ProcessResult> out;
  for (const auto& spec : specs) out.push_back(launch(spec));
  return out;
}

ProcessResult PosixLauncher::launch(const SpawnSpec& spec) { return launch_one(spec, true); }

std::vector<ProcessResult> PosixLauncher::launch_all(const std::vector<SpawnSpec>& specs, int jobs) {
  std::vector<ProcessResult> out(specs.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < specs.size();) out[i] = launch_one(specs[i], false);
  };
  std::vector<std::thread> threads;
  const auto n = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(jobs, 1)), 1, std::max<std::size_t>(specs.size(), 1));
  for (std::size_t t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  end_orphans();
  return out;
}

ProcessResult PosixLauncher::launch_one(const SpawnSpec& spec, bool orphans) {
  ProcessResult res;
  if (spec.argv.empty()) {
    res.spawn_error = "empty command";
    return res;
  }
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    res.spawn_error = errno_text("pipe2", errno);
    return res;
  }
  if (spec.sample_machine) res.machine_before = sampler_.sample(cpus_);
  const pid_t pid = spawn(spec, cpus_, pipefd, res);
  if (pid == 0) {
    ::close(pipefd[0]);
    return res;
  }
  kill_point("process_started");
  const long long deadline = res.spawn_ns + std::chrono::nanoseconds(spec.timeout).count();
  const bool stop = read_channel(pipefd[0], pid, deadline, res);
  ::close(pipefd[0]);
  reap(pid, deadline, stop, res, orphans);
  if (spec.sample_machine) {
    res.machine_after = sampler_.sample(cpus_);
    res.ticks_per_s = sampler_.ticks_per_s();
  }
  return res;
}

}  // namespace jitbench
