#include "config/catalog.h"
#include "util/test_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <variant>

namespace jitbench {
namespace {
namespace fs = std::filesystem;

// A user workload file `<stem>.py` in a directory of this test's own.
fs::path user_workload_file(const std::string& stem) {
  static const TestDir dir("catalog-test");
  const auto path = dir.path() / (stem + ".py");
  std::ofstream(path) << "# a user workload\n";
  return path;
}

Catalog with_workload(const Catalog& c, const fs::path& file) {
  auto r = c.with_user_workload(file.string());
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<Catalog>(std::move(r));
}

TEST(Catalog, TwoCatalogsSideBySideDoNotSeeEachOthersWorkloads) {
  const auto file = user_workload_file("side_loop");
  const Catalog plain = Catalog::builtin();
  const Catalog mine = with_workload(plain, file);
  ASSERT_NE(mine.find_workload("side_loop"), nullptr);
  EXPECT_EQ(mine.find_workload("side_loop")->path, fs::absolute(file).string());
  EXPECT_FALSE(mine.find_workload("side_loop")->record_loaded);
  EXPECT_EQ(plain.find_workload("side_loop"), nullptr);
  EXPECT_EQ(Catalog::builtin().find_workload("side_loop"), nullptr);
  EXPECT_EQ(plain.workload_names().find("side_loop"), std::string::npos);
  EXPECT_NE(mine.workload_names().find("side_loop"), std::string::npos);
  EXPECT_EQ(mine.workloads().size(), plain.workloads().size() + 1);

  // A second catalog with its own file of another name: neither sees the other's.
  const Catalog theirs = with_workload(plain, user_workload_file("other_loop"));
  EXPECT_EQ(theirs.find_workload("side_loop"), nullptr);
  EXPECT_EQ(mine.find_workload("other_loop"), nullptr);
}

TEST(Catalog, ARecordGivenMakesANewCatalogAndLeavesTheOldOneAlone) {
  const Catalog placeholder = with_workload(Catalog::builtin(), user_workload_file("record_loop"));
  WorkloadInfo record;
  record.name = "record_loop";
  record.summary = "counts";
  record.cost_coefficient = 0.5;
  const Catalog described = placeholder.with_record(record);
  ASSERT_NE(described.find_workload("record_loop"), nullptr);
  EXPECT_TRUE(described.find_workload("record_loop")->record_loaded);
  EXPECT_EQ(described.find_workload("record_loop")->cost_coefficient, 0.5);
  // Its name and path are kept.
  EXPECT_EQ(described.find_workload("record_loop")->path, placeholder.find_workload("record_loop")->path);
  EXPECT_FALSE(placeholder.find_workload("record_loop")->record_loaded);
  // A record for a built-in workload changes nothing.
  WorkloadInfo fake = *Catalog::builtin().workloads().front();
  fake.summary = "not the catalog's";
  const Catalog same = Catalog::builtin().with_record(fake);
  EXPECT_EQ(same.workloads().front()->summary, Catalog::builtin().workloads().front()->summary);
}

TEST(Catalog, AUserWorkloadFileIsChecked) {
  const Catalog& c = Catalog::builtin();
  const auto error = [&](const std::string& path) {
    auto r = c.with_user_workload(path);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
  };
  EXPECT_NE(error("/nonexistent/x.py").find("does not exist"), std::string::npos);
  const auto builtin_name = c.workloads().front()->name;
  EXPECT_NE(error(user_workload_file(builtin_name).string()).find("built-in workload"), std::string::npos);
  EXPECT_NE(error(user_workload_file("9lives").string()).find("letters, digits and _"), std::string::npos);
  // The same file twice is one workload.
  const auto file = user_workload_file("twice_loop");
  const Catalog once = with_workload(c, file);
  EXPECT_EQ(with_workload(once, file).workloads().size(), once.workloads().size());
}

TEST(Catalog, TheCarriedRecordWinsOverTheWorkersUnlessItIsAPlaceholder) {
  WorkloadInfo carried;
  carried.name = "w";
  carried.summary = "the plan's";
  const nlohmann::json reported = {{"name", "w"}, {"summary", "the worker's"}};
  EXPECT_EQ(workload_record(&carried, reported)->summary, "the plan's");
  carried.record_loaded = false;
  EXPECT_EQ(workload_record(&carried, reported)->summary, "the worker's");
  EXPECT_EQ(workload_record(&carried, nullptr)->summary, "the plan's");
  EXPECT_EQ(workload_record(nullptr, reported)->summary, "the worker's");
  EXPECT_FALSE(workload_record(nullptr, nullptr).has_value());
}

}  // namespace
}  // namespace jitbench
