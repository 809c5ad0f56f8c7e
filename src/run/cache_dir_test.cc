#include "run/cache_dir.h"
#include "run/cache_watch.h"
#include "util/fs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace jitbench {
namespace {
namespace fs = std::filesystem;

class CacheDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/jitbench-cachetest-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    root_ = base_ / "out";
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(base_); }
  static void touch(const fs::path& p) { std::ofstream(p) << "x"; }
  // A directory outside the out dir that carries a (forged) marker and a file
  // that must survive every refusal.
  fs::path marked_outside(const std::string& name) {
    const fs::path dir = base_ / name;
    fs::create_directories(dir);
    touch(dir / kCacheMarker);
    touch(dir / "precious.txt");
    return dir;
  }
  fs::path base_, root_;
};

TEST_F(CacheDirTest, CreatesAndEmptiesKeepingMarker) {
  fs::path dir;
  ASSERT_FALSE(create_owned_cache_dir(root_, "case_a", &dir));
  fs::create_directories(dir / "sub");
  touch(dir / "sub" / "entry.bin");
  touch(dir / "top.bin");
  EXPECT_EQ(list_cache_dir(dir).size(), 2u);
  ASSERT_FALSE(empty_owned_cache_dir(dir, root_));
  EXPECT_EQ(list_cache_dir(dir).size(), 0u);
  EXPECT_TRUE(fs::exists(dir / kCacheMarker));
}

TEST_F(CacheDirTest, RefusesDirectoryWithoutMarker) {
  const fs::path foreign = root_ / "cache" / "foreign";
  fs::create_directories(foreign);
  touch(foreign / "precious.txt");
  auto err = empty_owned_cache_dir(foreign, root_);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("marker"), std::string::npos);
  EXPECT_TRUE(fs::exists(foreign / "precious.txt"));
  // ...and will not adopt it either.
  fs::path dir;
  EXPECT_TRUE(create_owned_cache_dir(root_, "foreign", &dir));
  EXPECT_TRUE(fs::exists(foreign / "precious.txt"));
}

TEST_F(CacheDirTest, RefusesDirectoryOutsideOutDir) {
  const fs::path outside = marked_outside("elsewhere");
  auto err = empty_owned_cache_dir(outside, root_);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("not inside"), std::string::npos);
  EXPECT_TRUE(fs::exists(outside / "precious.txt"));
}

TEST_F(CacheDirTest, RefusesTheOutDirItself) {
  touch(root_ / kCacheMarker);
  touch(root_ / "result.json");
  EXPECT_TRUE(empty_owned_cache_dir(root_, root_));
  EXPECT_TRUE(fs::exists(root_ / "result.json"));
}

TEST_F(CacheDirTest, RefusesSymlinkIntoForeignDirectory) {
  const fs::path outside = marked_outside("victim");
  fs::create_directories(root_ / "cache");
  fs::create_directory_symlink(outside, root_ / "cache" / "link");
  try {
    (void)empty_owned_cache_dir(root_ / "cache" / "link", root_);
    ADD_FAILURE() << "a link in the cache directory's place was not refused";
  } catch (const WriteError& e) {
    EXPECT_TRUE(e.link_refused()) << e.what();  // the README's exit 13 for the run
  }
  EXPECT_TRUE(fs::exists(outside / "precious.txt"));
}

// cache/ itself replaced by a link while the run runs (to a marked copy, so the
// case's own directory and marker look right): refused before any process may
// write there, for warm_cache's kept cache as for an emptied one.
TEST_F(CacheDirTest, ALinkAboveTheCaseDirectoryIsRefusedToo) {
  fs::path dir;
  ASSERT_FALSE(create_owned_cache_dir(root_, "c", &dir));
  const fs::path outside = base_ / "outside_cache";
  fs::copy(root_ / "cache", outside, fs::copy_options::recursive);
  fs::remove_all(root_ / "cache");
  fs::create_directory_symlink(outside, root_ / "cache");
  for (const bool kept : {true, false}) {
    try {
      (void)(kept ? owned_cache_dir_problem(dir, root_) : empty_owned_cache_dir(dir, root_));
      ADD_FAILURE() << "cache/ as a link was not refused (kept: " << kept << ")";
    } catch (const WriteError& e) {
      EXPECT_TRUE(e.link_refused()) << e.what();
      EXPECT_NE(std::string(e.what()).find("is a symbolic link"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::exists(outside / "c" / kCacheMarker));
}

TEST_F(CacheDirTest, SymlinkInsideCacheIsRemovedNotFollowed) {
  fs::path dir;
  ASSERT_FALSE(create_owned_cache_dir(root_, "c", &dir));
  const fs::path outside = base_ / "keep";
  fs::create_directories(outside);
  touch(outside / "precious.txt");
  fs::create_directory_symlink(outside, dir / "link");
  ASSERT_FALSE(empty_owned_cache_dir(dir, root_));
  EXPECT_FALSE(fs::exists(dir / "link"));
  EXPECT_TRUE(fs::exists(outside / "precious.txt"));
}

TEST_F(CacheDirTest, RejectsPathLikeNames) {
  fs::path dir;
  EXPECT_TRUE(create_owned_cache_dir(root_, "../x", &dir));
  EXPECT_TRUE(create_owned_cache_dir(root_, "..", &dir));
}

}  // namespace
}  // namespace jitbench
