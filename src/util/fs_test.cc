#include "util/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace jitbench {
namespace {
namespace fs = std::filesystem;

struct TempRoot {
  fs::path root = fs::temp_directory_path() / ("jitbench-fs-test-" + std::to_string(::getpid()));
  TempRoot() {
    fs::remove_all(root);
    fs::create_directories(root / "in");
    fs::create_directories(root / "outside");
  }
  ~TempRoot() { fs::remove_all(root); }
};

TEST(SafeWrite, WritesBelowTheRootCreatingDirectories) {
  TempRoot t;
  write_file_in(t.root / "in", "a/b/c.txt", "hello");
  EXPECT_EQ(read_file(t.root / "in/a/b/c.txt"), "hello");
  write_file_in(t.root / "in", "a/b/c.txt", "again");
  EXPECT_EQ(read_file(t.root / "in/a/b/c.txt"), "again");
}

TEST(SafeWrite, NeverWritesThroughALinkedDirectory) {
  TempRoot t;
  fs::create_directory_symlink(t.root / "outside", t.root / "in" / "report");
  try {
    write_file_in(t.root / "in", "report/x.html", "x");
    FAIL() << "wrote through a link";
  } catch (const WriteError& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(t.root / "outside"));
  EXPECT_THROW(open_file_in(t.root / "in", "report/log.txt"), WriteError);
  EXPECT_TRUE(fs::is_empty(t.root / "outside"));
}

TEST(SafeWrite, ALinkAtTheDestinationIsReplacedNotFollowed) {
  TempRoot t;
  write_file_in(t.root / "outside", "target.txt", "precious");
  fs::create_symlink(t.root / "outside" / "target.txt", t.root / "in" / "f.txt");
  write_file_in(t.root / "in", "f.txt", "new");
  EXPECT_EQ(read_file(t.root / "outside" / "target.txt"), "precious");
  EXPECT_FALSE(fs::is_symlink(t.root / "in" / "f.txt"));
  EXPECT_EQ(read_file(t.root / "in" / "f.txt"), "new");
  // a link planted where open_file_in's file goes is replaced, not followed
  fs::create_symlink(t.root / "outside" / "target.txt", t.root / "in" / "log.txt");
  const int fd = open_file_in(t.root / "in", "log.txt");
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::write(fd, "log", 3), 3);
  ::close(fd);
  EXPECT_EQ(read_file(t.root / "outside" / "target.txt"), "precious");
  EXPECT_EQ(read_file(t.root / "in" / "log.txt"), "log");
}

TEST(SafeWrite, AHardLinkIsReplacedNeverTruncated) {
  TempRoot t;
  write_file_in(t.root / "outside", "target.txt", "precious");
  fs::create_hard_link(t.root / "outside" / "target.txt", t.root / "in" / "log.txt");
  fs::create_hard_link(t.root / "outside" / "target.txt", t.root / "in" / "doc.json");
  const int fd = open_file_in(t.root / "in", "log.txt");
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::write(fd, "new", 3), 3);
  ::close(fd);
  write_file_in(t.root / "in", "doc.json", "{}");
  EXPECT_EQ(read_file(t.root / "outside" / "target.txt"), "precious");
  EXPECT_EQ(read_file(t.root / "in" / "log.txt"), "new");
  EXPECT_EQ(fs::hard_link_count(t.root / "outside" / "target.txt"), 1u);
}

TEST(ReadFile, OnlyRegularFilesAreRead) {
  TempRoot t;
  ASSERT_EQ(::mkfifo((t.root / "in" / "fifo").c_str(), 0600), 0);
  EXPECT_THROW(read_file(t.root / "in" / "fifo"), std::runtime_error);  // never blocks
  fs::create_symlink("/dev/zero", t.root / "in" / "zero");
  EXPECT_THROW(read_file(t.root / "in" / "zero"), std::runtime_error);  // never reads forever
  EXPECT_THROW(read_file("/dev/zero", /*follow_link=*/true), std::runtime_error);
  try {
    read_file(t.root / "in" / "fifo");
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file (a FIFO)"), std::string::npos) << e.what();
  }
}

TEST(SafeWrite, ABatchIsAllOrNothing) {
  TempRoot t;
  write_file_in(t.root / "in", "one.json", "old1");
  fs::create_directory_symlink(t.root / "outside", t.root / "in" / "bad");
  EXPECT_THROW(write_files_in(t.root / "in", {{"one.json", "new1"}, {"bad/two.json", "new2"}}), WriteError);
  EXPECT_EQ(read_file(t.root / "in" / "one.json"), "old1");  // not renamed: the batch failed
  for (const auto& e : fs::directory_iterator(t.root / "in"))
    EXPECT_FALSE(e.path().filename().string().ends_with(".tmp")) << e.path();
}

// The door's directories, removals, renames and reads (everything jitbench
// does below a root it owns): a link below the root is never followed.
TEST(Door, MakeDirRefusesALinkAndSetsItsMode) {
  TempRoot t;
  make_dir_in(t.root / "in", "references", 0700);
  EXPECT_EQ(fs::status(t.root / "in" / "references").permissions(), fs::perms::owner_all);
  fs::create_directory_symlink(t.root / "outside", t.root / "in" / "refs2");
  ::chmod((t.root / "outside").c_str(), 0755);
  try {
    make_dir_in(t.root / "in", "refs2", 0700);
    FAIL() << "made a directory through a link";
  } catch (const WriteError& e) {
    EXPECT_TRUE(e.link_refused()) << e.what();
  }
  EXPECT_EQ(fs::status(t.root / "outside").permissions(), static_cast<fs::perms>(0755));  // its mode untouched
}

TEST(Door, RemoveNeverFollowsALink) {
  TempRoot t;
  write_file_in(t.root / "outside", "keep.txt", "precious");
  write_file_in(t.root / "in", "tree/a/b.txt", "x");
  fs::create_directory_symlink(t.root / "outside", t.root / "in" / "tree" / "a" / "link");
  remove_in(t.root / "in", "tree");
  EXPECT_FALSE(fs::exists(t.root / "in" / "tree"));
  EXPECT_EQ(read_file(t.root / "outside" / "keep.txt"), "precious");
  // A link at rel is removed itself; a link above rel is refused, nothing removed through it.
  fs::create_directory_symlink(t.root / "outside", t.root / "in" / "snapshots");
  EXPECT_THROW(remove_in(t.root / "in", "snapshots/keep.txt"), WriteError);
  EXPECT_TRUE(fs::exists(t.root / "outside" / "keep.txt"));
  remove_in(t.root / "in", "snapshots");
  EXPECT_FALSE(fs::is_symlink(t.root / "in" / "snapshots"));
  EXPECT_TRUE(fs::exists(t.root / "outside" / "keep.txt"));
  remove_in(t.root / "in", "never/there");  // absent: nothing to do
}

TEST(Door, EmptyDirKeepsWhatItIsToldAndRenameRefusesALink) {
  TempRoot t;
  write_file_in(t.root / "in", "d/.marker", "m");
  write_file_in(t.root / "in", "d/x/y", "y");
  empty_dir_in(t.root / "in", "d", {".marker"});
  EXPECT_TRUE(fs::exists(t.root / "in" / "d" / ".marker"));
  EXPECT_FALSE(fs::exists(t.root / "in" / "d" / "x"));
  write_file_in(t.root / "in", "tmp/new", "n");
  fs::create_directory_symlink(t.root / "outside", t.root / "in" / "snapshots");
  EXPECT_THROW(rename_in(t.root / "in", "tmp", "snapshots/ID"), WriteError);
  EXPECT_TRUE(fs::is_empty(t.root / "outside"));
  rename_in(t.root / "in", "tmp", "final");
  EXPECT_EQ(read_file(t.root / "in" / "final" / "new"), "n");
}

TEST(Door, OpenReadRefusesLinksAndFifos) {
  TempRoot t;
  write_file_in(t.root / "outside", "secret", "s");
  fs::create_symlink(t.root / "outside" / "secret", t.root / "in" / "ref.pickle");
  EXPECT_THROW(open_read_in(t.root / "in", "ref.pickle"), WriteError);
  ASSERT_EQ(::mkfifo((t.root / "in" / "fifo").c_str(), 0600), 0);
  EXPECT_THROW(open_read_in(t.root / "in", "fifo"), WriteError);
  write_file_in(t.root / "in", "ok", "fine");
  const int fd = open_read_in(t.root / "in", "ok");
  char buf[8] = {};
  EXPECT_EQ(::read(fd, buf, sizeof buf), 4);
  ::close(fd);
}

TEST(Door, APrivateDirIsMadeForThisUserAndRemovedWithItsContents) {
  fs::path kept;
  {
    PrivateDir d("jitbench-door-test");
    kept = d.path();
    EXPECT_TRUE(d.intact());
    EXPECT_EQ(fs::status(d.path()).permissions(), fs::perms::owner_all);
    write_file_in(d.path(), "a/b", "x");
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(PlainRelative, OnlyPathsThatStayInside) {
  for (const char* ok : {"a", "cases/x.json", "ml/cases/y.json"}) EXPECT_TRUE(is_plain_relative(ok)) << ok;
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/.", "a/"})
    EXPECT_FALSE(is_plain_relative(bad)) << bad;
}
}  // namespace
}  // namespace jitbench
