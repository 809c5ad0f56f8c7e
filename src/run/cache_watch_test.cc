#include "run/cache_watch.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>

#include "run/cache_dir.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

class CacheWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/jitbench-watchtest-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    write(dir_ / kCacheMarker, "marker");
    fs::create_directories(dir_ / "sub");
    write(dir_ / "sub" / "old.bin", "entry");
    write(dir_ / "other.bin", "entry");
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  fs::path dir_;
};

TEST_F(CacheWatchTest, AnEntryReadIsSeenAndNothingWritten) {
  CacheWatch w(dir_);
  EXPECT_EQ(read(dir_ / "sub" / "old.bin"), "entry");
  const auto o = w.finish();
  EXPECT_TRUE(o.watched) << o.note;
  EXPECT_EQ(o.files_before, 2u);  // the marker is not an entry
  EXPECT_EQ(o.entries_read, 1u);
  EXPECT_EQ(o.written(), 0u);
  EXPECT_EQ(o.removed, 0u);
}

TEST_F(CacheWatchTest, NothingReadWhenNothingIsOpened) {
  CacheWatch w(dir_);
  const auto o = w.finish();
  EXPECT_TRUE(o.watched);
  EXPECT_EQ(o.entries_read, 0u);
}

TEST_F(CacheWatchTest, WritesAnywhereAreCountedEvenInNewDirectories) {
  CacheWatch w(dir_);
  write(dir_ / "other.bin", "changed!");  // modified
  fs::create_directories(dir_ / "new" / "deep");
  write(dir_ / "new" / "deep" / "entry.bin", "x");  // added below a directory made during the run
  fs::remove(dir_ / "sub" / "old.bin");             // removed
  const auto o = w.finish();
  EXPECT_EQ(o.added, 1u);
  EXPECT_EQ(o.modified, 1u);
  EXPECT_EQ(o.removed, 1u);
  EXPECT_EQ(o.entries_read, 0u);
  EXPECT_EQ(o.files_after, 2u);
}

TEST_F(CacheWatchTest, AFileWrittenThenReadIsNotAnOldEntryRead) {
  CacheWatch w(dir_);
  write(dir_ / "other.bin", "rewritten");
  EXPECT_EQ(read(dir_ / "other.bin"), "rewritten");
  const auto o = w.finish();
  EXPECT_EQ(o.entries_read, 0u);
  EXPECT_EQ(o.modified, 1u);
}

TEST(CacheWatchNoDir, NoDirectoryIsNotWatched) {
  CacheWatch w("");
  const auto o = w.finish();
  EXPECT_FALSE(o.watched);
  EXPECT_NE(o.note, "");
}

}  // namespace
}  // namespace jitbench
