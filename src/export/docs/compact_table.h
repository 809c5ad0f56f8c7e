#pragma once
// summary.md's tables (and report.html's throughput table), made to fit a screen: a column appears only where some
// row has a value, and a long cell that repeats (or any very long one) becomes
// a numbered note below the table, written once.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "report/table.h"

namespace jitbench {
// A table row's width as a reader sees it: UTF-8 code points, not bytes.
std::size_t display_width(std::string_view s);
// The table without its empty columns ("—" or "" in every row; the first is
// always kept), long cells replaced by "[k]", and the notes "- [k] text" after it.
// Columns named in `keep` are never made notes (the answer a table exists for).
std::string compact_markdown(Table t, const std::vector<std::string>& keep = {});
// The same for a page that draws the table itself (report.html): the table
// with "[k]" in place of each long cell, and note k's text at notes[k - 1].
struct CompactTable {
  Table table;
  std::vector<std::string> notes;
};
CompactTable compact_table(Table t, const std::vector<std::string>& keep = {});
}  // namespace jitbench
