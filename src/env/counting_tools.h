#pragma once
// What --count instructions[:valgrind|:hardware] finds on this machine, read
// once when a run starts (docs/noise.md, "Instructions"): whether a hardware
// instruction counter opens (perf_event_open), valgrind and its version,
// whether address randomisation can be turned off for a process (setarch -R),
// and the counting library the workers load. The choice is automatic — the
// hardware counter where one opens, else valgrind — unless forced.
#include <filesystem>
#include <string>
#include <variant>

#include "run/counting.h"

namespace jitbench {

// "" when a user-space instruction counter of this process opens here, else
// why not (perf_event_open's error: ENOENT where there is no PMU, EACCES
// under perf_event_paranoid). JITBENCH_TEST_FAKE_PMU=1 (tests) says "" .
std::string hardware_counter_unavailable();

struct CountingRequest {
  std::string forced;  // "", "valgrind" or "hardware" (--count instructions:SOURCE)
  int runs = kDefaultCountRuns;
  int jobs = 1;
  std::filesystem::path library;  // where libjitbench-count was found
};

// The setup, or one line saying what is missing and how to get it.
std::variant<CountingSetup, std::string> resolve_counting(const CountingRequest& req);

}  // namespace jitbench
