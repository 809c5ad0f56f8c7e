#include "report/table.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

TEST(Table, MarkdownAndHtmlFromOneTable) {
  Table t{{"Case", "Verdict"}, {}};
  t.add({"`a_b`", "**disagrees**"});
  t.rows.push_back({{"`c`", "x < y \\| z"}, "warn", "c"});
  EXPECT_EQ(to_markdown(t), "| Case | Verdict |\n|---|---|\n| `a_b` | **disagrees** |\n| `c` | x < y \\| z |\n");
  EXPECT_EQ(to_html(t),
            "<table><tr><th>Case</th><th>Verdict</th></tr><tr><td><code>a_b</code></td><td><b>disagrees</b></td>"
            "</tr>\n<tr class='warn' data-case='c'><td><code>c</code></td><td>x &lt; y | z</td></tr>\n</table>");
}

TEST(Table, EscapesWhatHtmlWouldRead) {
  EXPECT_EQ(inline_html("<script>`<b>`"), "&lt;script&gt;<code>&lt;b&gt;</code>");
  EXPECT_EQ(html_escape("a'b\"c&"), "a&#x27;b&quot;c&amp;");
}

}  // namespace
}  // namespace jitbench
