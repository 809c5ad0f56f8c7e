#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "commands/common/common.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(StepSummary, AppendsNeverTruncatesAndIsSilentWithoutTheVariable) {
  TestDir dir("step-summary");
  const auto file = dir.path() / "summary.md";
  std::ofstream(file) << "# before\n";
  ::setenv("GITHUB_STEP_SUMMARY", file.c_str(), 1);
  append_step_summary("| a |\n", "test");
  append_step_summary("| b |\n", "test");
  EXPECT_EQ(read(file), "# before\n\n| a |\n\n| b |\n");
  ::setenv("GITHUB_STEP_SUMMARY", "", 1);
  append_step_summary("| c |\n", "test");  // set but empty: nothing written anywhere
  ::unsetenv("GITHUB_STEP_SUMMARY");
  append_step_summary("| c |\n", "test");
  EXPECT_EQ(read(file), "# before\n\n| a |\n\n| b |\n");
}

}  // namespace
}  // namespace jitbench
