#include "export/json/noise_json.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "export/json/json_util.h"
#include "export/json/schema.h"

namespace jitbench {

std::string noise_json(const NoiseFloor& n) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : n.metrics)
    metrics.push_back({{"case", m.case_id}, {"metric", m.metric}, {"n_a", m.n_a}, {"n_b", m.n_b},
                       {"median_a", m.median_a}, {"median_b", m.median_b}, {"ratio", m.ratio},
                       {"ratio_ci95", {m.lo, m.hi}}, {"p", m.p}, {"testable", m.testable},
                       {"detectable_pct", m.detectable_pct ? nlohmann::json(*m.detectable_pct) : nlohmann::json()}});
  const nlohmann::json doc = {{"schema_version", kNoiseSchema},
                              {"alpha", n.alpha},
                              {"runs", {n.run_a, n.run_b}},
                              {"command", n.command},
                              {"started_at", text_or_null(n.started_at)},
                              {"finished_at", text_or_null(n.finished_at)},
                              {"metrics", metrics}};
  for (const auto& e : validate_against(doc, kNoiseSchema))  // a document that breaks its schema is a bug here
    throw std::runtime_error("noise.json does not match its schema: " + e);
  return json_text(doc);
}

}  // namespace jitbench
