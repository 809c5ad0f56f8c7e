#pragma once
// A Table as the page templates read it (src/report/figures/jitbench_figures/
// templates/_table.html): columns and rows of Markdown-inline cells, each row
// with its CSS class and case id. The templates turn the cells into HTML.
#include <nlohmann/json.hpp>

#include "report/table.h"

namespace jitbench {
nlohmann::json table_json(const Table& t);
}  // namespace jitbench
