#include "export/sections/throughput.h"

#include <fmt/format.h>

#include "util/json_get.h"

namespace jitbench {

const char* const kThroughputIntro =
    "What a warm call achieves, counted as each workload's catalog record says (matmul: 2n³ FLOP per call; mc_pi: "
    "n samples per call; a short loop: its steps per call), against the no-JIT floor on the same device — `native` "
    "on the CPU, `native_cuda` on a GPU, same workload, size, dtype and precision — and, where the record names a "
    "ceiling (matmul: GEMM), against the machine's ceiling measured at the start of the run (environment.json "
    "`ceilings`). A fraction of the floor above 1× means the case is faster than the floor.";

namespace {
std::string rate(double v, const std::string& unit) {
  if (unit.rfind("G", 0) == 0) return fmt::format("{:.1f} {}", v, unit);  // already scaled (GFLOP/s)
  const std::string plain = unit.size() > 2 ? unit : "/s";
  if (v >= 1e9) return fmt::format("{:.2f} G {}", v / 1e9, plain);
  if (v >= 1e6) return fmt::format("{:.2f} M {}", v / 1e6, plain);
  return fmt::format("{:.3g} {}", v, plain);
}
std::string seconds(double s) {
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} µs", s * 1e6);
}
}  // namespace

Table throughput_table(const Analysis& analysis) {
  Table t{{"Case", "Device", "Warm call", "Achieved", "× floor", "Floor", "% of ceiling"}, {}};
  for (const auto& r : analysis.throughput) {
    std::string vs_floor = "—", floor = r.floor_note;
    if (r.floor) {
      floor = r.floor == r.c ? "(this is the floor)" : "`" + r.floor->c.id + "` " + rate(*r.floor_achieved, r.unit);
      const double f = *r.fraction_of_floor;
      vs_floor = f < 0.1 ? fmt::format("{:.2g}×", f) : fmt::format("{:.2f}×", f);
      if (r.crosses_environments) floor += " ⚠ crosses environments";
    }
    const std::string ceiling = r.ceiling ? fmt::format("{:.0f}% of {} ({:.0f} GFLOP/s)", *r.fraction_of_ceiling * 100,
                                                        r.ceiling_name, *r.ceiling)
                                          : "— " + r.ceiling_note;
    t.add({"`" + r.c->c.id + "`", r.device, seconds(r.warm_median_s), rate(r.achieved, r.unit), vs_floor, floor,
           ceiling});
  }
  return t;
}

std::string ceilings_line(const nlohmann::json& ceilings) {
  if (!ceilings.is_object()) return "not measured (this run's environment has none)";
  std::string out;
  for (const char* device : {"cpu", "gpu"}) {
    const nlohmann::json d = ceilings.contains(device) ? ceilings[device] : nlohmann::json();
    std::string part;
    if (!bool_or(d, "measured", false)) {
      part = "not measured (" + string_or(d, "reason", "?") + ")";
    } else {
      for (const auto& [key, label] : {std::pair{"sgemm_tf32_gflops", "sgemm TF32"}, {"sgemm_gflops", "sgemm"},
                                       {"dgemm_gflops", "dgemm"}})
        if (auto v = number_at(d, (std::string("/") + key).c_str()))
          part += fmt::format("{}{} {:.0f} GFLOP/s", part.empty() ? "" : " · ", label, *v);
      if (auto v = number_at(d, "/copy_gbps")) part += fmt::format(" · copy {:.0f} GB/s", *v);
    }
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", device == std::string("cpu") ? "CPU" : "GPU", part);
  }
  return out;
}

Section throughput_section(const SectionInput& in) {
  Section s;
  s.id = "throughput";
  s.heading = "Throughput against the floor and the ceiling";
  s.explanation = kThroughputIntro;
  s.context = fmt::format("Ceilings: {}.", ceilings_line(in.environment.ceilings()));
  s.table = throughput_table(in.analysis);
  s.compact = true;
  return s;
}

}  // namespace jitbench
