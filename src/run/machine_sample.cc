#include "run/machine_sample.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "util/fs.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// The fields after "cpu": user nice system idle iowait irq softirq steal (guest guest_nice).
std::optional<CpuTicks> aggregate_line(const std::string& line) {
  std::istringstream in(line.substr(3));
  std::uint64_t v[8] = {};
  for (auto& x : v)
    if (!(in >> x)) return std::nullopt;
  CpuTicks t;
  t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
  t.idle = v[3] + v[4];
  t.steal = v[7];
  return t;
}

bool is_cpu_n(const std::string& line) {
  return line.size() > 3 && line.compare(0, 3, "cpu") == 0 && line[3] >= '0' && line[3] <= '9';
}

std::optional<std::string> slurp(const fs::path& p) { return read_capped(p); }

double ticks_to_s(std::uint64_t after, std::uint64_t before, long hz) {
  return static_cast<double>(after - before) / static_cast<double>(hz);
}
}  // namespace

std::optional<CpuTicks> parse_proc_stat(std::string_view text, const std::vector<int>& only) {
  std::istringstream in{std::string(text)};
  std::optional<CpuTicks> total;
  CpuTicks pinned;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, 4, "cpu ") == 0 && !total) {
      total = aggregate_line(line);
    } else if (is_cpu_n(line)) {
      const auto sp = line.find(' ');
      const int id = std::atoi(line.substr(3, sp - 3).c_str());
      if (only.empty()) {
        ++n;
      } else if (std::find(only.begin(), only.end(), id) != only.end()) {
        const auto t = aggregate_line("cpu" + line.substr(sp));
        if (!t) return std::nullopt;
        pinned.busy += t->busy, pinned.idle += t->idle, pinned.steal += t->steal;
        ++n;
      }
    }
  }
  if (!only.empty()) {
    if (n != static_cast<int>(only.size())) return std::nullopt;  // a pinned CPU not in the snapshot
    pinned.n_cpus = n;
    return pinned;
  }
  if (!total || n == 0) return std::nullopt;
  total->n_cpus = n;
  return total;
}

std::optional<double> parse_loadavg(std::string_view text) {
  std::istringstream in{std::string(text)};
  double v = 0;
  if (!(in >> v) || v < 0) return std::nullopt;
  return v;
}

std::optional<Interference> measure_interference(const std::optional<MachineSample>& before,
                                                 const std::optional<MachineSample>& after, double worker_cpu_s,
                                                 double wall_s, long nivcsw, long ticks_per_s) {
  if (!before || !after || ticks_per_s <= 0) return std::nullopt;
  const auto &b = before->cpu, &a = after->cpu;
  if (a.n_cpus != b.n_cpus || a.busy < b.busy || a.steal < b.steal || a.idle < b.idle) return std::nullopt;
  Interference x;
  x.worker_cpu_s = worker_cpu_s;
  x.wall_s = wall_s;
  x.nivcsw = nivcsw;
  x.n_cpus = a.n_cpus;
  const double resolution_s = static_cast<double>(a.n_cpus) / static_cast<double>(ticks_per_s);
  // No CPU time beyond the machine's over the process's life: snapshots that
  // claim more are not of this interval (injected ones, JITBENCH_TEST_MACHINE_SAMPLES)
  // and are capped there, a figure the reader accepts (interference_impossible).
  const double capacity_s = static_cast<double>(a.n_cpus) * std::max(0.0, wall_s) + resolution_s;
  x.other_cpu_s = std::clamp(ticks_to_s(a.busy, b.busy, ticks_per_s) - worker_cpu_s, 0.0, capacity_s);
  x.steal_s = std::min(ticks_to_s(a.steal, b.steal, ticks_per_s), capacity_s);
  x.load_start = before->load1;
  x.load_end = after->load1;
  x.interfered = interference_rule(x.other_cpu_s, x.steal_s, worker_cpu_s, wall_s, x.n_cpus, resolution_s);
  return x;
}

ProcSampler::ProcSampler() {
  if (const char* dir = std::getenv("JITBENCH_TEST_MACHINE_SAMPLES"); dir && *dir) {
    injected_ = dir;
    // Never silently: the interference figures of this run are not this machine's.
    say(stderr, "jitbench: JITBENCH_TEST_MACHINE_SAMPLES is set (a test-only switch): interference is read from "
                "the snapshots in {}, not measured on this machine\n", injected_.string());
  }
  if (const long hz = ::sysconf(_SC_CLK_TCK); hz > 0) ticks_ = hz;
}

std::optional<MachineSample> ProcSampler::sample(const std::vector<int>& cpus) {
  const long n = next_++;
  const fs::path stat = injected_.empty() ? fs::path("/proc/stat") : injected_ / ("stat." + std::to_string(n));
  const fs::path load = injected_.empty() ? fs::path("/proc/loadavg") : injected_ / ("loadavg." + std::to_string(n));
  const auto text = slurp(stat);
  if (!text) return std::nullopt;
  const auto cpu = parse_proc_stat(*text, cpus);
  if (!cpu) return std::nullopt;
  MachineSample s{*cpu, std::nullopt};
  if (const auto l = slurp(load)) s.load1 = parse_loadavg(*l);
  return s;
}

MachineSampler& default_machine_sampler() {
  static ProcSampler sampler;
  return sampler;
}

}  // namespace jitbench
