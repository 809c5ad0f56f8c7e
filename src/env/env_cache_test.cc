#include "env/env_cache.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/test_dir.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

void write_bytes(const fs::path& p, std::size_t n) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << std::string(n, 'x');
}

// An environment as the builder leaves it: its made mark, its record, its uses.
fs::path make_env(const fs::path& root, const std::string& hash, const std::string& name, const std::string& used) {
  const auto d = root / hash;
  fs::create_directories(d / "bin");
  std::ofstream(d / kEnvMadeMark) << "made\n";
  std::ofstream(d / kEnvRecord) << R"({"name": ")" << name << R"(", "requirements": ["pkg==1"], "exclude_newer": null})";
  if (!used.empty()) std::ofstream(d / kEnvUses) << used << "\t" << name << "\t/runs/" << name << "\n";
  return d;
}

EnvironmentCache three_envs(const fs::path& root) {
  std::ofstream(root / kEnvRootMark) << "cache\n";
  write_bytes(make_env(root, "aaaaaaaaaaaaaaaa", "old", "2020-01-01T00:00:00Z") / "lib" / "a.so", 1000);
  write_bytes(make_env(root, "bbbbbbbbbbbbbbbb", "mid", "2024-06-01T00:00:00Z") / "lib" / "b.so", 2000);
  write_bytes(make_env(root, "cccccccccccccccc", "new", "2026-01-01T00:00:00Z") / "lib" / "c.so", 4000);
  return scan_environment_cache(root, {});
}

TEST(EnvCache, HardLinkedFilesAreCountedOnce) {
  TestDir dir("envcache-links");
  std::ofstream(dir.path() / kEnvRootMark) << "cache\n";
  const auto a = make_env(dir.path(), "aaaaaaaaaaaaaaaa", "a", "");
  const auto b = make_env(dir.path(), "bbbbbbbbbbbbbbbb", "b", "");
  write_bytes(a / "lib" / "big.so", 100000);
  fs::create_hard_link(a / "lib" / "big.so", a / "lib" / "big-again.so");  // twice in one environment
  fs::create_directories(b / "lib");
  fs::create_hard_link(a / "lib" / "big.so", b / "lib" / "big.so");  // and once in another
  const auto c = scan_environment_cache(dir.path(), {});
  ASSERT_EQ(c.environments.size(), 2u);
  std::uint64_t small = 0;  // the records and marks
  for (const auto& e : c.environments) {
    EXPECT_GE(e.bytes, 100000u);
    EXPECT_LT(e.bytes, 101000u) << "a file linked twice inside one environment counted twice";
    EXPECT_LT(e.freed_bytes, 1000u) << "a file another environment links to is not freed by removing this one";
    small += e.bytes - 100000;
  }
  EXPECT_EQ(c.total_bytes, 100000u + small) << "a file linked from two environments counted twice";
}

TEST(EnvCache, ListsLastUseRunsAndForeignEntries) {
  TestDir dir("envcache-list");
  auto c = three_envs(dir.path());
  fs::create_directories(dir.path() / "mine");  // not jitbench's
  fs::create_directories(dir.path() / "dddddddddddddddd");  // named like one, but no mark
  c = scan_environment_cache(dir.path(), {{"aaaaaaaaaaaaaaaa", std::nullopt}, {"cccccccccccccccc", "cccccccccccccccc"}});
  ASSERT_EQ(c.environments.size(), 3u);
  EXPECT_EQ(c.environments[0].name, "new");  // most recently used first
  EXPECT_EQ(c.environments[0].runs, std::vector<std::string>{"/runs/new"});
  EXPECT_EQ(c.environments[0].current, true);
  EXPECT_FALSE(c.environments[2].current.has_value());  // null: the hash could not be computed, unknown, not stale
  EXPECT_FALSE(c.environments[1].current.has_value());
  EXPECT_EQ(c.foreign, (std::vector<std::string>{"dddddddddddddddd", "mine"}));
  EXPECT_FALSE(pick_environment(c, "mine").env);
  EXPECT_NE(pick_environment(c, "mine").error.find("not made by jitbench"), std::string::npos);
  EXPECT_EQ(pick_environment(c, "mid").env->hash, "bbbbbbbbbbbbbbbb");
  EXPECT_EQ(pick_environment(c, "cccc").env->hash, "cccccccccccccccc");
}

TEST(EnvCache, PruneTakesTheLeastRecentlyUsedFirst) {
  TestDir dir("envcache-prune");
  const auto c = three_envs(dir.path());
  const long long now = *parse_utc_seconds("2026-01-02T00:00:00Z");
  auto names = [&](const std::vector<std::size_t>& idx) {
    std::vector<std::string> out;
    for (auto i : idx) out.push_back(c.environments[i].name);
    return out;
  };
  EXPECT_EQ(names(choose_prune(c, {std::nullopt, std::nullopt}, now)), std::vector<std::string>{});
  EXPECT_EQ(names(choose_prune(c, {365.0, std::nullopt}, now)), (std::vector<std::string>{"old", "mid"}));
  EXPECT_EQ(names(choose_prune(c, {std::nullopt, c.total_bytes}, now)), std::vector<std::string>{});
  // Room for the newest alone: the two older ones go, oldest first.
  EXPECT_EQ(names(choose_prune(c, {std::nullopt, c.environments[0].bytes}, now)),
            (std::vector<std::string>{"old", "mid"}));
  EXPECT_EQ(names(choose_prune(c, {std::nullopt, c.total_bytes - 1}, now)), std::vector<std::string>{"old"});
}

TEST(EnvCache, PruneTakesHalfBuiltAndStaleOnlyWhenAskedButNeverOneInUse) {
  TestDir dir("envcache-stale");
  three_envs(dir.path());
  fs::remove(dir.path() / "cccccccccccccccc" / kEnvRecord);  // half-built
  // bbbb: this jitbench computes another hash (stale); aaaa: its hash could not be computed (unknown).
  auto c = scan_environment_cache(dir.path(), {{"bbbbbbbbbbbbbbbb", "ffffffffffffffff"},
                                               {"aaaaaaaaaaaaaaaa", std::nullopt}});
  const long long now = *parse_utc_seconds("2026-01-02T00:00:00Z");
  const auto chosen = [&](const PruneRule& rule) {
    std::vector<std::string> hashes;
    for (auto i : choose_prune(c, rule, now)) hashes.push_back(c.environments[i].hash);
    return hashes;
  };
  EXPECT_EQ(chosen({}), std::vector<std::string>{"cccccccccccccccc"});
  PruneRule stale;
  stale.stale = true;
  EXPECT_EQ(chosen(stale), (std::vector<std::string>{"bbbbbbbbbbbbbbbb", "cccccccccccccccc"}));
  for (auto& e : c.environments) e.in_use = true;
  EXPECT_TRUE(choose_prune(c, {0.0, 0, true}, now).empty());
}

TEST(EnvCache, AHoldThatFindsTheRecordGoneLeavesNoLockHeld) {
  TestDir dir("envcache-hold-gone");
  const auto c = three_envs(dir.path());
  const auto& e = c.environments[0];
  fs::remove(e.dir / kEnvRecord);  // removed between its build and the hold
  EXPECT_NE(hold_environment(dir.path(), e.hash, e.name, "/runs/y").find("removed"), std::string::npos);
  const auto again = scan_environment_cache(dir.path(), {});
  for (const auto& x : again.environments)
    if (x.hash == e.hash) {
      EXPECT_FALSE(x.in_use) << "the failed hold kept its lock";
    }
}

TEST(EnvCache, RemovesOnlyWhatJitbenchMadeAndNothingHeld) {
  TestDir dir("envcache-rm");
  const auto c = three_envs(dir.path());
  const auto& held = c.environments[0];
  ASSERT_EQ(hold_environment(dir.path(), held.hash, held.name, "/runs/x"), "");
  const auto again = scan_environment_cache(dir.path(), {});
  EXPECT_TRUE(again.environments[0].in_use);
  EXPECT_EQ(again.environments[0].runs.back(), "/runs/x");
  // The lock is held by this process's open file; another open file description cannot take it exclusively.
  EXPECT_NE(remove_cached_environment(again, again.environments[0]).find("in use"), std::string::npos);
  EXPECT_TRUE(fs::exists(held.dir));
  EXPECT_EQ(remove_cached_environment(again, again.environments[2]), "");
  EXPECT_FALSE(fs::exists(again.environments[2].dir));
  fs::remove(dir.path() / kEnvRootMark);
  const auto unmarked = scan_environment_cache(dir.path(), {});
  EXPECT_TRUE(unmarked.environments.empty());  // a root jitbench did not make: every entry is foreign
  EXPECT_EQ(unmarked.foreign.size(), 2u);
}

}  // namespace
}  // namespace jitbench
