#pragma once
// The one table renderer: every table of summary.md, report.md and
// report.html is a Table, rendered to Markdown or HTML here. Cells are
// Markdown-inline text (`code`, **bold**); HTML gets them converted and escaped.
#include <string>
#include <string_view>
#include <vector>

namespace jitbench {

struct TableRow {
  std::vector<std::string> cells;
  std::string css_class;  // HTML only: e.g. the status ("ok", "warn", "failed")
  std::string case_id;    // HTML only: a data-case attribute
};

struct Table {
  std::vector<std::string> columns;
  std::vector<TableRow> rows;
  void add(std::vector<std::string> cells) { rows.push_back({std::move(cells), "", ""}); }
  bool empty() const { return rows.empty(); }
};

// "| a | b |\n|---|---|\n| 1 | 2 |\n"
std::string to_markdown(const Table& t);
// "<table><tr><th>a</th>...</tr><tr><td>1</td>...</tr></table>"
std::string to_html(const Table& t);
// Markdown-inline text as escaped HTML: `x` -> <code>x</code>, **x** -> <b>x</b>.
std::string inline_html(std::string_view md);
std::string html_escape(std::string_view s);

}  // namespace jitbench
