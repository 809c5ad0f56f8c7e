#pragma once
// `jitbench compare --csv` and `--pyperf`: every comparison row as CSV, and a
// run as pyperf's JSON format (version 1.0), which `python -m pyperf
// compare_to` and `pyperf stats` read.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "compare/compare.h"
#include "compare/gate_verdict.h"
#include "results/model.h"

namespace jitbench {

// A metric's value with its unit, as compare's tables show it (MiB, instructions, seconds).
std::string metric_value_text(const std::string& metric, double v);
std::string compare_csv(const compare::Comparison& c);
// A suite of benchmarks, each with runs: a cold run is one process with one
// value, a warm run one process with its warm calls. description names the run.
nlohmann::json pyperf_suite(const std::vector<CaseResult>& cases, const std::string& description);

// `compare --format json`: the rows as judged, with any re-measurement
// (schemas/jitbench.compare.v1.schema.json).
std::string compare_json(const compare::GateVerdict& v);
// `compare --format markdown` and what GITHUB_STEP_SUMMARY receives: a
// heading, one table row per metric (grade and gate included) and the
// closing verdict line.
std::string compare_markdown(const compare::GateVerdict& v);
// The verdict in one line ("jitbench compare: ..."): the gate's outcome, or
// the rows' count where no threshold was given.
std::string verdict_line(const compare::GateVerdict& v);
}  // namespace jitbench
