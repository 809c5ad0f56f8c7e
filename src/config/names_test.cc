#include "config/names.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace jitbench
