#include "export/bisect_json.h"

#include <stdexcept>

#include "export/json_util.h"
#include "export/schema.h"
#include "util/clock.h"

namespace jitbench {
std::string bisect_json(const BisectDocument& d) {
  const nlohmann::json doc = {{"schema_version", kBisectSchema},
                              {"package", d.package},
                              {"good", d.good},
                              {"bad", d.bad},
                              {"with", d.with},
                              {"metric", d.metric},
                              {"threshold_pct", d.threshold_pct},
                              {"alpha", d.alpha},
                              {"candidates", d.candidates},
                              {"steps", d.steps},
                              {"result", d.result},
                              {"finished_at", utc_now()}};
  for (const auto& e : validate_against(doc, kBisectSchema))  // a document that breaks its schema is a bug here
    throw std::runtime_error("bisect.json does not match its schema: " + e);
  return json_text(doc);
}
}  // namespace jitbench
