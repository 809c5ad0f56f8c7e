#pragma once
// CPU lists as the kernel writes them (/sys/devices/system/cpu/online,
// isolated, cpuset.cpus) and as `--affinity` takes them: "0,2-3".
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace jitbench {

// The CPUs of a list, sorted and without repeats, or a one-line reason it is
// not one ("" is the empty list; a CPU above kMaxCpuNumber is refused).
inline constexpr int kMaxCpuNumber = 1023;  // CPU_SETSIZE - 1: what sched_setaffinity takes
std::variant<std::vector<int>, std::string> parse_cpu_list(std::string_view text);

// The shortest list text of sorted CPUs: {0, 2, 3} -> "0,2-3"; {} -> "".
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace jitbench
