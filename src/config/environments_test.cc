#include "config/environments.h"

#include <gtest/gtest.h>

#include <set>

namespace jitbench {
namespace {

TEST(EnvironmentSpec, NameAndPins) {
  auto r = parse_environment_spec("old:jax==0.4.38;jaxlib==0.4.38");
  ASSERT_TRUE(std::holds_alternative<EnvironmentSpec>(r));
  const auto& s = std::get<EnvironmentSpec>(r);
  EXPECT_EQ(s.name, "old");
  EXPECT_EQ(s.requirements, (std::vector<std::string>{"jax==0.4.38", "jaxlib==0.4.38"}));
}

TEST(EnvironmentSpec, ANameIsMadeFromTheFirstRequirement) {
  auto s = std::get<EnvironmentSpec>(parse_environment_spec("jax>=0.4,<0.5"));
  EXPECT_EQ(s.name, "jax-0.4-0.5");
  EXPECT_EQ(s.requirements, (std::vector<std::string>{"jax>=0.4,<0.5"}));
  EXPECT_EQ(std::get<EnvironmentSpec>(parse_environment_spec("numba==0.60.0")).name, "numba-0.60.0");
  // A URL requirement's ':' is no name.
  auto url = std::get<EnvironmentSpec>(parse_environment_spec("pkg @ https://example.org/pkg-1.0.whl"));
  EXPECT_EQ(url.requirements.size(), 1u);
  EXPECT_EQ(url.name, "pkg");
}

TEST(EnvironmentSpec, BadSpecsSayHow) {
  EXPECT_NE(std::get<std::string>(parse_environment_spec("x:")).find("no requirement"), std::string::npos);
  EXPECT_NE(std::get<std::string>(parse_environment_spec(";;")).find("write [NAME:]REQ;REQ"), std::string::npos);
}

TEST(EnvironmentSpec, Names) {
  EXPECT_TRUE(valid_environment_name("jax-0.4.38"));
  EXPECT_FALSE(valid_environment_name("Jax"));
  EXPECT_FALSE(valid_environment_name("-x"));
  EXPECT_FALSE(valid_environment_name("a b"));
  EXPECT_FALSE(valid_environment_name(std::string(65, 'a')));
}

TEST(EnvironmentSpec, ReleaseNamesNeverCollide) {
  EXPECT_EQ(release_environment_name("jax", "0.4.26"), "jax-0.4.26");
  EXPECT_EQ(release_environment_name("SlowImp", "1.1+slow"), "slowimp-1.1_pslow");
  // The default rule makes both of these pkg-1.0-a; bisect's names differ.
  EXPECT_EQ(default_environment_name({"pkg==1.0+a"}), default_environment_name({"pkg==1.0-a"}));
  const std::vector<std::string> versions = {"1.0+a", "1.0-a", "1.0_a", "1.0.a", "1!1.0", "1-1.0", "1.0+a_b",
                                             "1.0+a__b", "1.0+a-b", "1.0+a.b", "1.0+ap", "1.0+a_pb",
                                             "1.0+" + std::string(60, 'x'), "1.0+" + std::string(60, 'x') + "y"};
  std::set<std::string> names;
  for (const auto& v : versions) {
    const auto n = release_environment_name("pkg", v);
    EXPECT_TRUE(valid_environment_name(n)) << v << " -> " << n;
    names.insert(n);
  }
  EXPECT_EQ(names.size(), versions.size());
}

TEST(EnvironmentSpec, Variables) {
  std::vector<EnvironmentSpec> specs{{"thunk", {"jax==0.4.31"}, "", {}}};
  EXPECT_EQ(apply_environment_variable(specs, "thunk:XLA_FLAGS=--xla_cpu_use_thunk_runtime=false"), "");
  EXPECT_EQ(specs[0].variables.at("XLA_FLAGS"), "--xla_cpu_use_thunk_runtime=false");
  EXPECT_NE(apply_environment_variable(specs, "other:A=1").find("no environment named 'other' (there are: thunk)"),
            std::string::npos);
  EXPECT_NE(apply_environment_variable(specs, "thunk").find("write NAME:VARIABLE=VALUE"), std::string::npos);
  specs.push_back(specs[0]);
  EXPECT_EQ(duplicate_environment(specs), "thunk");
}

}  // namespace
}  // namespace jitbench
