#include "config/suite.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

namespace jitbench {
namespace {

std::string error_of(const std::string& text) {
  Catalog catalog = Catalog::builtin();
  auto r = parse_suite(text, "s.toml", catalog);
  if (auto* e = std::get_if<ConfigError>(&r)) return e->message;
  return "";
}

const char* kBlock = "[[matrix]]\nbackends=[\"numpy\"]\nworkloads=[\"matmul\"]\nsizes=[8]\ndtypes=[\"f32\"]\n";

TEST(Suite, EmbeddedDefaultParses) {
  Suite s = default_suite();
  EXPECT_EQ(s.name, "default");
  EXPECT_EQ(s.cold_runs, 5);
  EXPECT_EQ(s.warm_iters, 30);
  EXPECT_FALSE(s.matrix.empty());
}

TEST(Suite, WithoutWarmItersItsWarmCallsAreCalibrated) {
  Catalog catalog = Catalog::builtin();
  auto r = parse_suite(std::string("[suite]\nname=\"x\"\n") + kBlock, "s.toml", catalog);
  EXPECT_FALSE(std::get<Suite>(r).warm_iters.has_value());  // no count given: calls until a minimum time
}

TEST(Suite, ReadsSettings) {
  Catalog catalog = Catalog::builtin();
  auto r = parse_suite(std::string("[suite]\nname=\"x\"\ncold_runs=2\nwarm_iters=0\ntimeout_s=1.5\n") + kBlock, "s.toml", catalog);
  auto& s = std::get<Suite>(r);
  EXPECT_EQ(s.name, "x");
  EXPECT_EQ(s.cold_runs, 2);
  EXPECT_EQ(s.warm_iters, 0);
  EXPECT_EQ(s.warm_runs, 1);  // one warm process unless asked
  EXPECT_DOUBLE_EQ(s.timeout_s, 1.5);
  ASSERT_EQ(s.matrix.size(), 1u);
  EXPECT_EQ(s.matrix[0].sizes[0], 8);
}

TEST(Suite, WarmRunsIsAtLeastOne) {
  Catalog catalog = Catalog::builtin();
  auto r = parse_suite(std::string("[suite]\nwarm_runs=5\n") + kBlock, "s.toml", catalog);
  EXPECT_EQ(std::get<Suite>(r).warm_runs, 5);
  auto e = error_of(std::string("[suite]\nwarm_runs=0\n") + kBlock);
  EXPECT_EQ(e.rfind("s.toml:2:", 0), 0u) << e;
  EXPECT_NE(e.find("'warm_runs' must be between 1 and 100000 (got 0)"), std::string::npos) << e;
}

TEST(Suite, SyntaxErrorHasPosition) {
  auto e = error_of("[suite]\nname = \n");
  EXPECT_EQ(e.rfind("s.toml:2:", 0), 0u) << e;
}

TEST(Suite, UnknownBackendHasPositionAndValidNames) {
  auto e = error_of("[[matrix]]\nbackends=[\"numpy\", \"jaxx\"]\nworkloads=[\"matmul\"]\nsizes=[8]\ndtypes=[\"f32\"]\n");
  EXPECT_EQ(e.rfind("s.toml:2:", 0), 0u) << e;
  EXPECT_NE(e.find("unknown backend 'jaxx'"), std::string::npos) << e;
  EXPECT_NE(e.find("jax_jit_cpu"), std::string::npos) << e;
}

TEST(Suite, UnknownKeyIsRejected) {
  auto e = error_of(std::string("[suite]\ncold_run=3\n") + kBlock);
  EXPECT_NE(e.find("unknown key 'cold_run'"), std::string::npos) << e;
  EXPECT_EQ(e.rfind("s.toml:2:", 0), 0u) << e;
}

TEST(Suite, WrongTypesAndRanges) {
  EXPECT_NE(error_of(std::string("[suite]\ncold_runs=0\n") + kBlock).find("'cold_runs' must be between 1 and"), std::string::npos);
  EXPECT_NE(error_of(std::string("[suite]\ncold_runs=\"5\"\n") + kBlock).find("must be an integer"), std::string::npos);
  EXPECT_NE(error_of("[[matrix]]\nbackends=[\"numpy\"]\nworkloads=[\"matmul\"]\nsizes=[0]\ndtypes=[\"f32\"]\n")
                .find("'sizes' must be between 1 and"),
            std::string::npos);
  EXPECT_NE(error_of("[[matrix]]\nbackends=[\"numpy\"]\nworkloads=[\"matmul\"]\ndtypes=[\"f32\"]\n").find("missing 'sizes'"),
            std::string::npos);
  EXPECT_NE(error_of("[suite]\nname=\"x\"\n").find("no [[matrix]] block"), std::string::npos);
}

// Numbers are checked at full width before any narrowing: 2^32 cold runs was
// once cut to 0 runs and "ok"; NaN or infinite timeouts timed every case out.
TEST(Suite, NumbersAreRangeCheckedBeforeUse) {
  const auto with = [](const std::string& line) { return error_of("[suite]\n" + line + "\n" + kBlock); };
  EXPECT_NE(with("cold_runs=4294967296").find("'cold_runs' must be between 1 and 100000 (got 4294967296)"),
            std::string::npos);
  EXPECT_NE(with("warm_iters=9000000000").find("'warm_iters' must be between 0 and"), std::string::npos);
  for (const char* t : {"timeout_s=inf", "timeout_s=nan", "timeout_s=1e10", "timeout_s=-inf", "timeout_s=0"})
    EXPECT_NE(with(t).find("'timeout_s' must be a finite number of seconds > 0"), std::string::npos) << t;
  Catalog catalog = Catalog::builtin();
  auto ok = parse_suite("[suite]\ntimeout_s=604800\n" + std::string(kBlock), "s.toml", catalog);
  EXPECT_EQ(std::get<Suite>(ok).timeout_s, 604800);
  EXPECT_NE(error_of("[[matrix]]\nbackends=[\"numpy\"]\nworkloads=[\"matmul\"]\nsizes=[9007199254740992]\n"
                     "dtypes=[\"f32\"]\n")
                .find("'sizes' must be between 1 and 9007199254740991"),
            std::string::npos);
}

TEST(Suite, MissingFileIsOneLine) {
  Catalog catalog = Catalog::builtin();
  auto r = load_suite_file("/nonexistent/suite.toml", catalog);
  auto& e = std::get<ConfigError>(r);
  EXPECT_EQ(e.message.find('\n'), std::string::npos);
  EXPECT_NE(e.message.find("/nonexistent/suite.toml"), std::string::npos);
}

TEST(Suite, AKeyOfTensOfThousandsOfPartsIsRefusedNotACrash) {
  std::string key = "a";
  for (int i = 0; i < 60000; ++i) key += ".b";
  EXPECT_NE(error_of(key + " = 1\n" + kBlock).find("s.toml:1: a key of 256 or more dotted parts"), std::string::npos);
  EXPECT_NE(error_of(std::string(kBlock) + "[" + key + "]\n").find("s.toml:6:"), std::string::npos);
  // Dots in values, strings and comments are no key parts.
  std::string floats = "# ";
  for (int i = 0; i < 300; ++i) floats += "1.5, ";
  EXPECT_EQ(error_of(std::string(kBlock) + floats + "\n[suite]\nname = \"" + std::string(300, '.') + "\"\n"), "");
}

TEST(Suite, AFifoIsNotWaitedFor) {
  char dir[] = "/tmp/jitbench-suite-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string fifo = std::string(dir) + "/suite.toml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Catalog catalog = Catalog::builtin();
  auto r = load_suite_file(fifo, catalog);  // would block forever reading a FIFO nobody writes
  ASSERT_TRUE(std::holds_alternative<ConfigError>(r));
  EXPECT_NE(std::get<ConfigError>(r).message.find("not a regular file (a FIFO)"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jitbench
