#include "export/sections/section.h"

#include "export/docs/compact_table.h"
#include "export/docs/table_json.h"

namespace jitbench {

bool section_shown(const Section& s) { return s.always || !s.table.empty() || !s.text.empty(); }

namespace {
std::string section_lists_md(const Section& s) {
  std::string md;
  for (const auto& list : s.lists) {
    if (list.items.empty()) continue;
    md += "\n" + list.title + "\n\n";
    for (const auto& item : list.items) md += "- " + item + "\n";
  }
  return md;
}

std::string section_table_md(const Section& s, SectionForm form) {
  if (s.table.empty()) return "";
  if (form == SectionForm::Screen) return compact_markdown(s.screen.columns.empty() ? s.table : s.screen);
  return s.compact ? compact_markdown(s.table) : to_markdown(s.table);
}
}  // namespace

std::string section_md(const Section& s, SectionForm form) {
  if (!section_shown(s)) return "";
  std::string md = "\n## " + s.heading + "\n\n";
  if (form == SectionForm::Full && !s.explanation.empty()) md += s.explanation + "\n\n";
  if (form == SectionForm::Screen && !s.context.empty()) md += s.context + "\n\n";
  if (!s.text.empty()) md += s.text + "\n";
  return md + section_table_md(s, form) + section_lists_md(s);
}

nlohmann::json section_page_json(const Section& s) {
  if (!section_shown(s)) return nullptr;
  nlohmann::json table = nullptr;
  if (!s.table.empty() && s.compact) {
    auto compact = compact_table(s.table);
    table = table_json(compact.table);
    table["notes"] = compact.notes;
  } else if (!s.table.empty()) {
    table = table_json(s.table);
  }
  nlohmann::json lists = nlohmann::json::array();
  for (const auto& list : s.lists)
    if (!list.items.empty()) lists.push_back({{"title", list.title}, {"items", list.items}});
  const auto intro = s.explanation.empty() ? s.text : s.text.empty() ? s.explanation : s.explanation + " " + s.text;
  return {{"kind", "section"}, {"id", s.id}, {"heading", s.heading}, {"intro", intro},
          {"table", table}, {"lists", lists}, {"note", s.page_note}};
}

}  // namespace jitbench
