#pragma once
// `jitbench doctor`: the machine's facts (env/host.h) judged for
// benchmarking. Each finding says what was found, what it means for the
// numbers, and what to do about it; nothing is changed.
#include <string>
#include <vector>

#include "env/host.h"

namespace jitbench {

// ok: nothing to do; note: worth knowing, rarely worth changing; warn: it
// moves the numbers, fix it before measuring; not_reported: the file that
// says is absent here (a VM without cpufreq, a kernel without the knob).
enum class FindingLevel { Ok, Note, Warn, NotReported };
const char* to_string(FindingLevel level);

struct Finding {
  std::string check;  // governor, boost, smt, aslr, load, steal, swap, thp, isolated_cpus, threads, vm, container
  FindingLevel level = FindingLevel::NotReported;
  std::string found;    // what the machine says, in words
  std::string meaning;  // what it does to the numbers
  std::string action;   // what to do ("" when nothing)
};

// Every check, always in the same order (one finding each).
std::vector<Finding> machine_findings(const HostFacts& host);

// True when a finding warns (`doctor --strict` fails on it).
bool any_warn(const std::vector<Finding>& findings);

// Workers pinned to `cpus` (--affinity): a one-line reason when a CPU is not
// online here or not one this process may run on; "" when every one is.
std::string affinity_problem(const std::vector<int>& cpus, const MachineFacts& machine);

}  // namespace jitbench
