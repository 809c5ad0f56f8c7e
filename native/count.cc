/* libjitbench_count: what a worker process calls to have its instructions
 * counted per phase (run --count instructions; docs/noise.md, "Instructions").
 * Loaded with ctypes by worker/jitbench_worker/counting.py from the path
 * jitbench gives it (JITBENCH_COUNT_LIB), so it travels with jitbench, not
 * with the interpreter measured.
 *
 *   valgrind: under callgrind, jitbench_count_dump(name) is
 *             CALLGRIND_DUMP_STATS_AT(name) (Debian's valgrind package,
 *             <valgrind/callgrind.h>): callgrind writes the instructions since
 *             the previous dump, with `name` as its trigger, and jitbench reads
 *             those files once the process has exited.
 *   hardware: perf_event_open's user-space instruction counter of the calling
 *             thread, read at each mark by the worker itself.
 *
 * JITBENCH_TEST_FAKE_PMU=1 (jitbench's own tests, on machines without a PMU)
 * makes the hardware counter "open" and read the thread's CPU time in
 * nanoseconds instead: increasing, not instructions. */
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef JITBENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

namespace {
int g_hw_fd = -1;
bool g_fake = false;
}  // namespace

extern "C" {

int jitbench_count_have_callgrind(void) {
#ifdef JITBENCH_HAVE_CALLGRIND
  return 1;
#else
  return 0;
#endif
}

int jitbench_count_on_valgrind(void) {
#ifdef JITBENCH_HAVE_CALLGRIND
  return RUNNING_ON_VALGRIND ? 1 : 0;  // NOLINT: valgrind's client-request macro
#else
  return 0;
#endif
}

void jitbench_count_dump(const char* name) {
#ifdef JITBENCH_HAVE_CALLGRIND
  CALLGRIND_DUMP_STATS_AT(name);
#else
  (void)name;
#endif
}

/* 0 when the counter is open, else -errno (ENOENT: no PMU, EACCES/EPERM:
 * perf_event_paranoid, ...). */
int jitbench_count_hw_open(void) {
  const char* fake = std::getenv("JITBENCH_TEST_FAKE_PMU");
  if (fake && std::strcmp(fake, "1") == 0) {
    g_fake = true;
    return 0;
  }
  struct perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 0;
  const long fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return -errno;
  g_hw_fd = static_cast<int>(fd);
  return 0;
}

/* Instructions the calling thread has retired in user space since
 * jitbench_count_hw_open; -1 when the counter is not open or cannot be read. */
long long jitbench_count_hw_read(void) {
  if (g_fake) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  }
  if (g_hw_fd < 0) return -1;
  std::uint64_t value = 0;
  if (::read(g_hw_fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) return -1;
  return static_cast<long long>(value);
}

}  // extern "C"
