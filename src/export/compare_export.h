#pragma once
// `jitbench compare --csv` and `--pyperf`: every comparison row as CSV, and a
// run as pyperf's JSON format (version 1.0), which `python -m pyperf
// compare_to` and `pyperf stats` read.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "compare/compare.h"
#include "results/model.h"

namespace jitbench {
std::string compare_csv(const compare::Comparison& c);
// A suite of benchmarks, each with runs: a cold run is one process with one
// value, a warm run one process with its warm calls. description names the run.
nlohmann::json pyperf_suite(const std::vector<CaseResult>& cases, const std::string& description);
}  // namespace jitbench
