#include <gtest/gtest.h>
#include <sys/stat.h>

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

TEST(StepSummary, AFifoIsWarnedAboutNeverWaitedOn) {
  TestDir dir("step-summary-fifo");
  const auto fifo = dir.path() / "summary.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ::setenv("GITHUB_STEP_SUMMARY", fifo.c_str(), 1);
  testing::internal::CaptureStderr();
  append_step_summary("| a |\n", "test");  // opening it to write would wait for a reader forever
  const auto said = testing::internal::GetCapturedStderr();
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_NE(said.find("not a regular file"), std::string::npos) << said;
}

}  // namespace
}  // namespace jitbench
