// How summary.md and the report render one Section: what differs between the
// documents differs here, on purpose, and nowhere else.
#include "export/sections/section.h"

#include <gtest/gtest.h>

namespace jitbench {
namespace {

Section with_table() {
  Section s;
  s.id = "x";
  s.heading = "X";
  s.explanation = "How to read X.";
  s.context = "Ceilings: none.";
  s.table = Table{{"Case", "Value"}, {}};
  s.table.add({"`a`", "1"});
  s.lists = {{"Not measured:", {"`b`: why"}}, {"Empty:", {}}};
  s.page_note = "About the figures.";
  return s;
}

TEST(Section, SummaryMdFitsAScreenAndTheReportExplainsUnderTheHeading) {
  const auto s = with_table();
  const auto screen = section_md(s, SectionForm::Screen);
  EXPECT_EQ(screen.rfind("\n## X\n\nCeilings: none.\n\n| Case | Value |", 0), 0u) << screen;
  EXPECT_EQ(screen.find("How to read X."), std::string::npos);  // said once in summary.md's "How to read"
  const auto full = section_md(s, SectionForm::Full);
  EXPECT_EQ(full.rfind("\n## X\n\nHow to read X.\n\n| Case | Value |", 0), 0u) << full;
  EXPECT_EQ(full.find("Ceilings"), std::string::npos);  // the report says it in its Environment table
  for (const auto& md : {screen, full}) {
    EXPECT_NE(md.find("\nNot measured:\n\n- `b`: why\n"), std::string::npos) << md;
    EXPECT_EQ(md.find("Empty:"), std::string::npos);  // an empty list is left out
    EXPECT_EQ(md.find("About the figures"), std::string::npos);  // the page's alone
  }
}

TEST(Section, SummaryMdShowsItsNarrowerTableWhereTheSectionHasOne) {
  auto s = with_table();
  s.screen = Table{{"Case"}, {}};
  s.screen.add({"`a`"});
  EXPECT_EQ(section_md(s, SectionForm::Screen).find("Value"), std::string::npos);
  EXPECT_NE(section_md(s, SectionForm::Full).find("| Case | Value |"), std::string::npos);
}

TEST(Section, NothingToShowIsNoSectionUnlessItWasAskedFor) {
  Section s;
  s.id = "x";
  s.heading = "X";
  s.explanation = "How to read X.";
  EXPECT_EQ(section_md(s, SectionForm::Full), "");
  EXPECT_TRUE(section_page_json(s).is_null());
  s.always = true;  // asked for, nothing came: the heading and why
  EXPECT_EQ(section_md(s, SectionForm::Full), "\n## X\n\nHow to read X.\n\n");
  s.always = false;
  s.text = "One sentence says all.";
  EXPECT_EQ(section_md(s, SectionForm::Screen), "\n## X\n\nOne sentence says all.\n");
}

TEST(Section, ThePageGetsTheWordsTheTableAndItsNote) {
  auto s = with_table();
  s.compact = true;
  const auto page = section_page_json(s);
  EXPECT_EQ(page.at("kind"), "section");
  EXPECT_EQ(page.at("id"), "x");
  EXPECT_EQ(page.at("intro"), "How to read X.");
  EXPECT_EQ(page.at("note"), "About the figures.");
  EXPECT_TRUE(page.at("table").contains("notes"));  // compacted: its repeated notes written once
  ASSERT_EQ(page.at("lists").size(), 1u);
  EXPECT_EQ(page.at("lists")[0].at("items")[0], "`b`: why");
}

}  // namespace
}  // namespace jitbench
