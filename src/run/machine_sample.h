#pragma once
// Snapshots of the whole machine's CPU accounting, taken just before a worker
// starts and just after it is reaped (docs/noise.md, "Interference"). /proc is
// read behind MachineSampler so that tests can feed snapshots; where
// /proc/stat cannot be read a snapshot is nullopt and the run's interference
// is "not reported", never "quiet".
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>
#include <string_view>

#include "results/interference.h"

namespace jitbench {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ).
struct CpuTicks {
  std::uint64_t busy = 0;   // user + nice + system + irq + softirq (guest time is inside user and nice)
  std::uint64_t idle = 0;   // idle + iowait
  std::uint64_t steal = 0;
  int n_cpus = 0;           // cpuN lines: the online CPUs
};
struct MachineSample {
  CpuTicks cpu;
  std::optional<double> load1;  // /proc/loadavg's first field
};

// nullopt when the text has no well-formed aggregate "cpu" line.
// `only` (the CPUs workers are pinned to, --affinity): the sum of those cpuN
// lines alone, n_cpus their count (nullopt when one is missing); empty: the
// aggregate line over every CPU.
std::optional<CpuTicks> parse_proc_stat(std::string_view text, const std::vector<int>& only = {});
std::optional<double> parse_loadavg(std::string_view text);

// The figures for one process from the snapshots around it and its rusage;
// nullopt ("not reported") when either snapshot is missing, the CPU count
// changed or a counter went backwards.
std::optional<Interference> measure_interference(const std::optional<MachineSample>& before,
                                                 const std::optional<MachineSample>& after, double worker_cpu_s,
                                                 double wall_s, long nivcsw, long ticks_per_s);

class MachineSampler {
 public:
  virtual ~MachineSampler() = default;
  // `cpus`: the CPUs the worker is pinned to (empty: not pinned, the whole machine).
  virtual std::optional<MachineSample> sample(const std::vector<int>& cpus) = 0;
  virtual long ticks_per_s() const = 0;
};

// /proc/stat and /proc/loadavg. JITBENCH_TEST_MACHINE_SAMPLES=DIR (set by
// jitbench's own tests only) reads DIR/stat.N and DIR/loadavg.N for the N-th
// snapshot instead, N counting from 0 over the jitbench process; a missing
// stat.N is a snapshot that could not be taken.
class ProcSampler final : public MachineSampler {
 public:
  ProcSampler();
  std::optional<MachineSample> sample(const std::vector<int>& cpus) override;
  long ticks_per_s() const override { return ticks_; }

 private:
  std::filesystem::path injected_;
  long next_ = 0;
  long ticks_ = 100;
};

// The sampler the case runner uses unless it is given another.
MachineSampler& default_machine_sampler();

}  // namespace jitbench
