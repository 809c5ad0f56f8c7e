// The native workers, the no-JIT floors: jitbench-native-worker (backend
// `native`, the CPU) and jitbench-native-cuda-worker (`native_cuda`, a CUDA
// GPU) share this file and differ in the workloads and target() they link.
// Each speaks the worker protocol (docs/protocol.md) on an inherited
// descriptor, like the Python worker, and times the same phases; compiled
// ahead of time with optimisation on, so its first call costs no compile.
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
  Json pending = nullptr;     // device work still queued after the last call
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
    t.pending = w.pending_after_last_call();
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
  t.pending = w.pending_after_last_call();
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
                 {"sync", {{"method", jitbench::native::target().sync},
                           {"pending_after_last_call", t.pending}}},
                 {"precision", w.precision(a.dtype == "f64", a.precision)}};
  if (a.mode == "cold") result["second_call_s"] = seconds(t.first, t.end);
  else result["calls_s"] = t.calls;
  memory["device_peak_bytes"] = w.device_peak_bytes();
  result["memory"] = memory;
  result["verify_first"] = w.verify(0);
  result["verify"] = w.verify(1);
  result["workload"] = w.info();
  const auto& target = jitbench::native::target();
  result["backend"] = target.build;
  result["backend"]["name"] = target.backend;
  result["backend"]["library"] = w.library();
  result["device"] = w.device();
  result["cache"] = {{"kind", "none"}, {"persistent", false}, {"note", "compiled ahead of time: nothing to cache"}};
  Json env = Json::object();
  for (const char* k : target.env_keys)
    if (const char* v = std::getenv(k)) env[k] = v;
  result["env"] = env;
  return result;
}

}  // namespace

nlohmann::json jitbench::native::Workload::device() { return target().device; }

namespace {
int run(const Args& a) {
  const std::string& name = jitbench::native::target().backend;
  auto workload = jitbench::native::make_workload(a.workload, a.precision);
  if (!workload) {
    send({{"type", "skip"}, {"status", "warn"},
          {"reason", fmt::format("unsupported: {} has no {} implementation", a.workload, name)}});
    return 0;
  }
  if (a.cache_policy == "warm_cache") {
    send({{"type", "skip"}, {"status", "warn"}, {"reason", fmt::format("unsupported: {} has no compile cache to warm", name)}});
    return 0;
  }
  if (a.mode == "aot") {
    send({{"type", "skip"}, {"status", "warn"}, {"reason", fmt::format("unsupported: {} compiles nothing at run time", name)}});
    return 0;
  }
  Clocks t;
  t.start = Clock::now();
  workload->load();  // shared libraries, threads, the CUDA context: the native "import"
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

// `ceilings`: what the machine can do, or why that could not be measured
// (a missing device or library is an answer here, not a skip).
void send_ceilings() {
  try {
    Json c = jitbench::native::measure_ceilings();
    c["measured"] = true;
    send({{"type", "ceilings"}, {"ceilings", c}});
  } catch (const Skip& s) {
    send({{"type", "ceilings"},
          {"ceilings", {{"measured", false}, {"reason", s.detail.empty() ? s.reason : s.reason + ": " + s.detail}}}});
  }
}
}  // namespace

int main(int argc, char** argv) {
  Args a;
  std::string command = argc > 1 ? argv[1] : "";
  std::map<std::string, std::string> kv;
  for (int i = 2; i + 1 < argc; i += 2) kv[argv[i]] = argv[i + 1];
  if ((command != "run" && command != "ceilings") || !kv.count("--fd")) {
    std::fprintf(stderr, "usage: %s ceilings --fd N\n       %s run --fd N --mode cold|warm --backend %s --workload W --n N --dtype f32|f64 "
                         "[--warm-iters K] [--seed S] [--cache-policy M] [--precision P]\n",
                 argc > 0 ? argv[0] : "jitbench-native-worker", argc > 0 ? argv[0] : "jitbench-native-worker",
                 jitbench::native::target().backend.c_str());
    return 2;
  }
  g_fd = std::stoi(kv["--fd"]);
  // Nothing this process starts may hold the channel open.
  ::fcntl(g_fd, F_SETFD, FD_CLOEXEC);
  send({{"type", "hello"}, {"protocol", 1}, {"pid", ::getpid()}, {"monotonic_ns", monotonic_ns()}});
  int code = 0;
  try {
    if (command == "ceilings") {
      send_ceilings();
    } else {
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
    }
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
