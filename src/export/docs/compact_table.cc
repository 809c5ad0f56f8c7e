#include "export/docs/compact_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace jitbench {
namespace {
constexpr std::size_t kNoteAlways = 40;    // a cell longer than this is always a note
constexpr std::size_t kNoteRepeated = 30;  // one longer than this is a note when it repeats in the table

bool blank_cell(const std::string& s) { return s.empty() || s == "—"; }

// A name (`numpy_matmul_512_f32`) stays in its table: it is what a reader looks for.
bool name_cell(const std::string& s) {
  return s.size() > 2 && s.front() == '`' && s.back() == '`' && s.find(' ') == std::string::npos;
}

void drop_empty_columns(Table& t) {
  for (std::size_t col = t.columns.size(); col-- > 1;) {
    bool empty = true;
    for (const auto& r : t.rows) empty = empty && (col >= r.cells.size() || blank_cell(r.cells[col]));
    if (!empty) continue;
    t.columns.erase(t.columns.begin() + static_cast<std::ptrdiff_t>(col));
    for (auto& r : t.rows)
      if (col < r.cells.size()) r.cells.erase(r.cells.begin() + static_cast<std::ptrdiff_t>(col));
  }
}
}  // namespace

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

CompactTable compact_table(Table t, const std::vector<std::string>& keep) {
  drop_empty_columns(t);
  std::map<std::string, int> seen;
  for (const auto& r : t.rows)
    for (std::size_t col = 1; col < r.cells.size(); ++col) ++seen[r.cells[col]];
  std::vector<std::string> notes;
  std::map<std::string, std::size_t> number;
  for (auto& r : t.rows)
    for (std::size_t col = 1; col < r.cells.size(); ++col) {
      if (std::find(keep.begin(), keep.end(), t.columns[col]) != keep.end()) continue;
      auto& cell = r.cells[col];
      const auto w = display_width(cell);
      if (name_cell(cell) || w <= kNoteRepeated || (w <= kNoteAlways && seen[cell] < 2)) continue;
      auto [it, added] = number.emplace(cell, notes.size() + 1);
      if (added) notes.push_back(cell);
      cell = fmt::format("[{}]", it->second);
    }
  return {std::move(t), std::move(notes)};
}

std::string compact_markdown(Table t, const std::vector<std::string>& keep) {
  const auto c = compact_table(std::move(t), keep);
  std::string md = to_markdown(c.table);
  if (!c.notes.empty()) md += "\n";
  for (std::size_t i = 0; i < c.notes.size(); ++i) md += fmt::format("- [{}] {}\n", i + 1, c.notes[i]);
  return md;
}

}  // namespace jitbench
