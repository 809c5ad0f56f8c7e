// jitbench-native-worker: the no-JIT floor. Speaks the worker protocol
// (docs/protocol.md) on an inherited descriptor, like the Python worker, and
// times the same phases; compiled ahead of time with optimisation on, so its
// first call costs no compile at all.
#include <fcntl.h>
#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads.h"

namespace {
using jitbench::native::Skip;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

int g_fd = -1;

void send(Json msg) {
  std::string line = msg.dump() + "\n";
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t w = ::write(g_fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::exit(3);
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

Json status_kib(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(key.size()));
  return nullptr;
}

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

struct Args {
  std::string mode, backend, workload, dtype, cache_policy = "cold_cache", precision = "default";
  long long n = 0, warm_iters = 30, seed = 0;
};

struct Clocks {
  Clock::time_point start, import, setup, first, end;
  std::vector<double> calls;  // warm
};

// The same steps as the Python worker's runner.py: import, setup, measure,
// verify, report. Between the first and the second call only the clock is read.
Clocks measure(jitbench::native::Workload& w, const Args& a, Clocks t) {
  t.setup = Clock::now();
  w.call(0);
  t.first = Clock::now();
  if (a.mode == "cold") {
    w.call(1);
    t.end = Clock::now();
    return t;
  }
  t.calls.reserve(static_cast<std::size_t>(a.warm_iters));
  for (long long i = 0; i < a.warm_iters; ++i) {
    const auto t0 = Clock::now();
    w.call(1);
    t.calls.push_back(seconds(t0, Clock::now()));
  }
  if (a.warm_iters == 0) w.call(1);  // something to verify besides the first output
  t.end = Clock::now();
  return t;
}

Json report(jitbench::native::Workload& w, const Args& a, const Clocks& t, Json memory) {
  Json result = {{"type", "result"},
                 {"mode", a.mode},
                 {"cache_policy", a.cache_policy},
                 {"ttfr_includes_import", a.cache_policy != "warm_process"},
                 {"import_s", seconds(t.start, t.import)},
                 {"setup_s", seconds(t.import, t.setup)},
                 {"first_call_s", seconds(t.setup, t.first)},
                 {"total_s", seconds(t.start, t.end)},
                 // Compiled ahead of time: no phases, and nothing compiles at run time.
                 {"first_call", {{"phases", Json::object()}, {"phase_names", Json::array()},
                                 {"phase_sources", Json::object()}}},
                 {"compiles", {{"first_call", 0}, {"later_calls", 0}, {"first_call_by_function", nullptr}}},
                 {"cache_events", Json::object()},
                 {"cache_events_later", Json::object()},
                 {"cache_files", {{"available", false}, {"note", "compiled ahead of time: no compile cache"}}},
                 {"sync", {{"method", "none needed: the call returns when the work is done"},
                           {"pending_after_last_call", nullptr}}},
                 {"precision", {{"requested", a.precision},
                                {"matmul", a.dtype == "f64" ? "fp64" : "ieee_fp32"},
                                {"settings", Json::object()},
                                {"rule", "computed on the CPU in IEEE arithmetic"}}}};
  if (a.mode == "cold") result["second_call_s"] = seconds(t.first, t.end);
  else result["calls_s"] = t.calls;
  memory["device_peak_bytes"] = nullptr;
  result["memory"] = memory;
  result["verify_first"] = w.verify(0);
  result["verify"] = w.verify(1);
  result["workload"] = w.info();
  result["backend"] = {{"name", "native"},
                       {"version", JITBENCH_NATIVE_VERSION},
                       {"compiler", fmt::format("g++ {}", __VERSION__)},
                       {"flags", JITBENCH_NATIVE_FLAGS},
                       {"library", w.library()}};
  result["device"] = {{"platform", "cpu"}, {"kind", "cpu"}, {"count", 1}};
  result["cache"] = {{"kind", "none"}, {"persistent", false}, {"note", "compiled ahead of time: nothing to cache"}};
  Json env = Json::object();
  for (const char* k : {"JITBENCH_NATIVE_BLAS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char* v = std::getenv(k)) env[k] = v;
  result["env"] = env;
  return result;
}

int run(const Args& a) {
  auto workload = jitbench::native::make_workload(a.workload);
  if (!workload) {
    send({{"type", "skip"}, {"status", "warn"}, {"reason", "unsupported: " + a.workload + " has no native implementation"}});
    return 0;
  }
  if (a.cache_policy == "warm_cache") {
    send({{"type", "skip"}, {"status", "warn"}, {"reason", "unsupported: native has no compile cache to warm"}});
    return 0;
  }
  if (a.mode == "aot") {
    send({{"type", "skip"}, {"status", "warn"}, {"reason", "unsupported: native compiles nothing at run time"}});
    return 0;
  }
  Clocks t;
  t.start = Clock::now();
  workload->load();  // shared libraries the workload needs: the native "import"
  t.import = Clock::now();
  Json memory = {{"rss_after_import_kib", status_kib("VmRSS")}};
  workload->setup(a.n, a.dtype == "f64", static_cast<std::uint64_t>(a.seed));
  memory["rss_before_first_call_kib"] = status_kib("VmRSS");
  t = measure(*workload, a, t);
  // Read after both calls: nothing runs between them.
  memory["hwm_after_calls_kib"] = status_kib("VmHWM");
  send(report(*workload, a, t, memory));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  std::string command = argc > 1 ? argv[1] : "";
  std::map<std::string, std::string> kv;
  for (int i = 2; i + 1 < argc; i += 2) kv[argv[i]] = argv[i + 1];
  if (command != "run" || !kv.count("--fd")) {
    std::fprintf(stderr, "usage: jitbench-native-worker run --fd N --mode cold|warm --backend native --workload W "
                         "--n N --dtype f32|f64 [--warm-iters K] [--seed S] [--cache-policy M] [--precision P]\n");
    return 2;
  }
  g_fd = std::stoi(kv["--fd"]);
  // Nothing this process starts may hold the channel open.
  ::fcntl(g_fd, F_SETFD, FD_CLOEXEC);
  send({{"type", "hello"}, {"protocol", 1}, {"pid", ::getpid()}, {"monotonic_ns", monotonic_ns()}});
  int code = 0;
  try {
    a.mode = kv["--mode"];
    a.backend = kv["--backend"];
    a.workload = kv["--workload"];
    a.dtype = kv["--dtype"];
    a.n = std::stoll(kv["--n"]);
    if (kv.count("--warm-iters")) a.warm_iters = std::stoll(kv["--warm-iters"]);
    if (kv.count("--seed")) a.seed = std::stoll(kv["--seed"]);
    if (kv.count("--cache-policy")) a.cache_policy = kv["--cache-policy"];
    if (kv.count("--precision")) a.precision = kv["--precision"];
    code = run(a);
  } catch (const Skip& s) {
    send({{"type", "skip"}, {"status", "warn"}, {"reason", s.reason}, {"detail", s.detail}});
  } catch (const std::exception& e) {
    send({{"type", "error"}, {"reason", "exception"}, {"message", e.what()}});
    code = 1;
  }
  send({{"type", "bye"}});
  ::close(g_fd);
  return code;
}
