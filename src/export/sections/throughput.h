#pragma once
// The throughput table (analysis ThroughputRow: each warm call against the
// no-JIT floor and the machine's ceiling) and the ceilings' one-line
// description, shared by summary.md and the report.
#include <nlohmann/json.hpp>

#include <string>

#include "analysis/analysis.h"
#include "export/sections/section.h"
#include "report/table.h"

namespace jitbench {
extern const char* const kThroughputIntro;
Table throughput_table(const Analysis& analysis);
// "CPU: sgemm 196 GFLOP/s · dgemm 103 GFLOP/s · copy 26 GB/s; GPU: not measured (why)".
std::string ceilings_line(const nlohmann::json& ceilings);
// Throughput: the table, compacted in every document, with the ceilings' line for summary.md.
Section throughput_section(const SectionInput& in);
}  // namespace jitbench
