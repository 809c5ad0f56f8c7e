// A commit's environment name keeps the commit's 12 hex digits however long the package's name.
#include <gtest/gtest.h>

#include <string>

#include "commands/bisection/git_range.h"
#include "config/environments.h"

namespace jitbench {
namespace {

const std::string kCommitId = "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a";

TEST(CommitEnvironmentName, AShortPackageNameAndTheCommit) {
  EXPECT_EQ(commit_environment_name("SlowImp", kCommitId), "slowimp-3f2a1b0c9d8e");
}

TEST(CommitEnvironmentName, ALongPackageNameIsCutNotTheCommit) {
  const std::string package(70, 'p');
  const auto name = commit_environment_name(package, kCommitId);
  EXPECT_EQ(name, std::string(51, 'p') + "-3f2a1b0c9d8e");
  EXPECT_TRUE(valid_environment_name(name)) << name;
  // Two commits of the same long-named package get two names.
  EXPECT_NE(name, commit_environment_name(package, "aaaaaaaaaaaa" + kCommitId.substr(12)));
}

TEST(CommitEnvironmentName, ACutThatEndsInASeparatorDropsIt) {
  const auto name = commit_environment_name(std::string(50, 'a') + "-bbbbbb", kCommitId);
  EXPECT_EQ(name, std::string(50, 'a') + "-3f2a1b0c9d8e");
  EXPECT_TRUE(valid_environment_name(name)) << name;
}

}  // namespace
}  // namespace jitbench
