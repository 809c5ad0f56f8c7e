#include "config/names.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace jitbench {
namespace {

TEST(Names, EveryNameRoundTrips) {
  for (auto s : {Status::Ok, Status::Warn, Status::Failed}) EXPECT_EQ(parse_status(to_string(s)), s);
  for (auto p : {CachePolicy::ColdCache, CachePolicy::WarmCache, CachePolicy::WarmProcess})
    EXPECT_EQ(parse_cache_policy(to_string(p)), p);
  for (auto p : {Precision::Default, Precision::Highest}) EXPECT_EQ(parse_precision(to_string(p)), p);
  for (auto m : {RunMode::Cold, RunMode::Warm, RunMode::Aot, RunMode::Anatomy}) EXPECT_EQ(parse_run_mode(to_string(m)), m);
  EXPECT_EQ(parse_cache_policy("process_cold"), CachePolicy::ColdCache);  // the seed's name
  EXPECT_FALSE(parse_cache_policy("lukewarm"));
}

TEST(Names, ReasonsWithAndWithoutArguments) {
  const auto dep = parse_reason("missing_dependency: jax");
  ASSERT_TRUE(dep);
  EXPECT_EQ(dep->code, ReasonCode::MissingDependency);
  EXPECT_EQ(dep->arg, "jax");
  EXPECT_EQ(to_string(*dep), "missing_dependency: jax");
  const auto why = parse_reason("unsupported: a: b");
  EXPECT_EQ(why->arg, "a: b");
  EXPECT_EQ(to_string(*why), "unsupported: a: b");
  EXPECT_TRUE(parse_reason("")->empty());
  EXPECT_EQ(to_string(Reason{}), "");
  EXPECT_FALSE(parse_reason("because"));
  EXPECT_TRUE(parse_reason("cache_not_cold")->is_cache_claim());
  EXPECT_FALSE(parse_reason("timeout")->is_cache_claim());
}

// The worker takes its --cache-policy, --precision and --mode choices from a
// generated copy of these lists: the copy must be what the lists print now.
TEST(Names, WorkerCopyIsCurrent) {
  const auto file = std::filesystem::path(JITBENCH_TEST_DATA) / ".." / ".." / "worker" / "jitbench_worker" / "names.py";
  const std::string want = worker_names_py();
  if (const char* u = std::getenv("JITBENCH_UPDATE_GOLDEN"); u && *u) {
    std::ofstream(file, std::ios::binary) << want;
    GTEST_SKIP() << "rewrote " << file;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file << " is missing: JITBENCH_UPDATE_GOLDEN=1 build/jitbench_tests --gtest_filter='Names.*'";
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), want) << file << " differs from src/config/names.cc: "
                             << "JITBENCH_UPDATE_GOLDEN=1 build/jitbench_tests --gtest_filter='Names.*' rewrites it";
}

TEST(Names, EveryUserNameHasADescription) {
  for (const auto* list : {&cache_policies(), &precisions(), &run_modes()})
    for (const auto& n : *list) EXPECT_FALSE(n.summary.empty()) << n.name;
  EXPECT_EQ(cache_policies().size(), 3u);
  EXPECT_EQ(precision_names(), "default, highest");
}

}  // namespace
}  // namespace jitbench
