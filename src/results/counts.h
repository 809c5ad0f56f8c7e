#pragma once
// A case's instructions per phase (run --count instructions; docs/noise.md,
// "Instructions"): the phases of each counting process, from the segments
// between its marks, and per phase the median over the processes with their
// spread. A near-deterministic quantity: processes of the same code differ by
// a fraction of a percent where their times differ by tens of percent, so the
// spread (max - min over the median) is what a comparison judges against.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/model.h"

namespace jitbench {

// The phases one counting process's segments give, in order: import, setup,
// first_call (every first_call segment together), its stages
// first_call.<stage> where the first call was divided, ttfr (import + setup +
// first_call), second_call, warm_call (the warm_calls segment per call).
// harness_start (the interpreter's start, the harness's own import) is no phase.
std::vector<std::pair<std::string, double>> count_phases(const RunCounts& c);

// The ok counting processes' counts per phase (one value per process).
std::map<std::string, std::vector<double>> count_samples(const CaseResult& c);

struct CountPhaseSummary {
  std::string phase;
  std::size_t n = 0;
  double median = 0, min = 0, max = 0;
  std::optional<double> spread_pct;  // (max - min) / median x 100; nullopt with one process or a median of 0
};

// Per phase, in count_phases' order; empty when nothing was counted.
std::vector<CountPhaseSummary> count_summary(const CaseResult& c);

// The source every ok counting process of the case used ("" when none, or
// when they differ, which no comparison may then judge).
std::string count_source(const CaseResult& c);

// Why the two cases' counts are not one quantity, per scope: `all` ("" when
// every phase compares) is a different source (callgrind counts every thread,
// a hardware counter the main thread) or a different determinism control
// (threads, address randomisation, hash seed: the counting processes ran other
// code), judged on what each control says was done, not on its wording (aslr
// "off" / "on", the thread variables set), a control recorded on one side
// only being a difference; `warm_call` ("" when it compares) is a different number of warm calls
// counted per process (the per-call figure of 2 calls is not that of 10).
// Neither is said of cases of which one was not counted.
struct CountsUnlike {
  std::string all;
  std::string warm_call;
};
CountsUnlike counts_unlike(const CaseResult& a, const CaseResult& b);

// Counts an instruction metric's name is made from: "instructions_" + phase.
inline constexpr const char* kInstructionsPrefix = "instructions_";

}  // namespace jitbench
