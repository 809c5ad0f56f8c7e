#include "export/docs/table_json.h"

namespace jitbench {

nlohmann::json table_json(const Table& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : t.rows) rows.push_back({{"cells", r.cells}, {"class", r.css_class}, {"case", r.case_id}});
  return {{"columns", t.columns}, {"rows", rows}};
}

}  // namespace jitbench
