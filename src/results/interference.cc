#include "results/interference.h"

#include <fmt/format.h>

#include <algorithm>

namespace jitbench {

bool interference_rule(double other_cpu_s, double steal_s, double worker_cpu_s, double wall_s, int n_cpus,
                       double resolution_s) {
  if (wall_s <= 0 || n_cpus <= 0) return false;
  const double n = static_cast<double>(n_cpus);
  const double busy = std::clamp(worker_cpu_s / wall_s, 0.0, n);
  const double idle_s = (n - busy) * wall_s;
  const double outside_bound = std::max(kInterferenceIdleShare * idle_s, kInterferenceFloorCpus * wall_s);
  return other_cpu_s > outside_bound + resolution_s || steal_s > kInterferenceStealCpus * wall_s + resolution_s;
}

std::string interference_impossible(const Interference& x) {
  if (x.n_cpus < 1) return fmt::format("n_cpus {} (a machine has at least one CPU)", x.n_cpus);
  for (auto [name, v] : {std::pair{"other_cpu_s", x.other_cpu_s}, {"steal_s", x.steal_s},
                         {"worker_cpu_s", x.worker_cpu_s}, {"wall_s", x.wall_s}})
    if (!(v >= 0)) return fmt::format("{} {} is negative", name, v);
  if (x.nivcsw < 0) return fmt::format("nivcsw {} is negative", x.nivcsw);
  const double n = static_cast<double>(x.n_cpus);
  const bool at_none = interference_rule(x.other_cpu_s, x.steal_s, x.worker_cpu_s, x.wall_s, x.n_cpus, 0.0);
  const bool at_slowest = interference_rule(x.other_cpu_s, x.steal_s, x.worker_cpu_s, x.wall_s, x.n_cpus,
                                            n / kSlowestTicksPerS);
  if (x.interfered && !at_none) return "interfered is true where its figures say quiet";
  if (!x.interfered && at_slowest) return "interfered is false where its figures say interfered with";
  return "";
}

bool cap_to_capacity(Interference& x) {
  if (x.n_cpus < 1 || !(x.wall_s >= 0)) return false;
  const double n = static_cast<double>(x.n_cpus);
  const double capacity_s = n * x.wall_s + n * kSampleSlackTicks / kSlowestTicksPerS;
  const bool capped = x.other_cpu_s > capacity_s || x.steal_s > capacity_s;
  x.other_cpu_s = std::min(x.other_cpu_s, capacity_s);
  x.steal_s = std::min(x.steal_s, capacity_s);
  return capped;
}

const char* grade_name(InterferenceGrade g) {
  switch (g) {
    case InterferenceGrade::Quiet: return "quiet";
    case InterferenceGrade::Busy: return "busy";
    case InterferenceGrade::Contended: return "contended";
  }
  return "?";
}

double others_cpus(const Interference& x) { return x.wall_s > 0 ? x.other_cpu_s / x.wall_s : 0.0; }

InterferenceGrade interference_grade(const Interference& x) {
  if (!x.interfered || x.wall_s <= 0 || x.n_cpus <= 0) return InterferenceGrade::Quiet;
  const double n = static_cast<double>(x.n_cpus);
  const double others = others_cpus(x), steal = x.steal_s / x.wall_s;
  if (others >= kContendedMachineShare * n || steal >= kContendedStealCpus)
    return InterferenceGrade::Contended;
  return InterferenceGrade::Busy;
}

void InterferenceShare::add(const Interference& x) {
  ++reported;
  if (x.interfered) ++interfered;
  switch (interference_grade(x)) {
    case InterferenceGrade::Quiet: ++quiet; break;
    case InterferenceGrade::Busy: ++busy; break;
    case InterferenceGrade::Contended: ++contended; break;
  }
  others_cpus.push_back(jitbench::others_cpus(x));
  n_cpus = std::max(n_cpus, x.n_cpus);
}

InterferenceShare& InterferenceShare::operator+=(const InterferenceShare& o) {
  runs += o.runs;
  reported += o.reported;
  interfered += o.interfered;
  quiet += o.quiet;
  busy += o.busy;
  contended += o.contended;
  others_cpus.insert(others_cpus.end(), o.others_cpus.begin(), o.others_cpus.end());
  n_cpus = std::max(n_cpus, o.n_cpus);
  return *this;
}

std::optional<InterferenceGrade> InterferenceShare::grade() const {
  const int n = quiet + busy + contended;
  if (n == 0) return std::nullopt;
  const int upper = n / 2 + 1;  // the upper median's rank, 1-based
  if (quiet >= upper) return InterferenceGrade::Quiet;
  if (quiet + busy >= upper) return InterferenceGrade::Busy;
  return InterferenceGrade::Contended;
}

std::optional<double> InterferenceShare::others_cpus_median() const {
  if (others_cpus.empty()) return std::nullopt;
  auto v = others_cpus;
  std::sort(v.begin(), v.end());
  const auto m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string InterferenceShare::grade_text() const {
  const auto g = grade();
  if (!g) return "not reported";
  if (*g == InterferenceGrade::Quiet) return "quiet";
  return fmt::format("{} (others {:.1f} of {} CPUs)", grade_name(*g), *others_cpus_median(), n_cpus);
}

}  // namespace jitbench
