#include "results/interference.h"

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

}  // namespace jitbench
