#include "report/table.h"

namespace jitbench {

std::string to_markdown(const Table& t) {
  std::string out = "|";
  for (const auto& c : t.columns) out += " " + c + " |";
  out += "\n|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (const auto& c : r.cells) out += " " + c + " |";
    out += "\n";
  }
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#x27;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string inline_html(std::string_view md) {
  std::string out;
  bool code = false, bold = false;
  for (std::size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '\\' && i + 1 < md.size() && md[i + 1] == '|') {  // a Markdown-escaped pipe
      out += '|';
      ++i;
    } else if (md[i] == '`') {
      out += code ? "</code>" : "<code>";
      code = !code;
    } else if (!code && md.substr(i, 2) == "**") {
      out += bold ? "</b>" : "<b>";
      bold = !bold;
      ++i;
    } else {
      out += html_escape(md.substr(i, 1));
    }
  }
  if (code) out += "</code>";
  if (bold) out += "</b>";
  return out;
}

std::string to_html(const Table& t) {
  std::string out = "<table><tr>";
  for (const auto& c : t.columns) out += "<th>" + inline_html(c) + "</th>";
  out += "</tr>";
  for (const auto& r : t.rows) {
    out += "<tr";
    if (!r.css_class.empty()) out += " class='" + html_escape(r.css_class) + "'";
    if (!r.case_id.empty()) out += " data-case='" + html_escape(r.case_id) + "'";
    out += ">";
    for (const auto& c : r.cells) out += "<td>" + inline_html(c) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>";
}

}  // namespace jitbench
