// What validate/ decides about an out dir: the golden run passes as written;
// a byte changed in a listed file, a file the index does not list, a listed
// file gone, a document that breaks its schema, and an index whose numbers
// disagree with its case files are each caught, named by path.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "util/fs.h"
#include "validate/check_out_dir.h"
#include "validate/cross_references.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

const fs::path kGolden = fs::path(JITBENCH_TEST_DATA) / "golden" / "expected";

// A private copy of the golden run, removed when the test ends.
class GoldenCopy {
 public:
  GoldenCopy() { fs::copy(kGolden, dir_.path(), fs::copy_options::recursive); }
  const fs::path& dir() const { return dir_.path(); }

 private:
  TestDir dir_{"validate-test"};
};

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(CheckOutDir, TheGoldenRunPassesAsWritten) {
  GoldenCopy g;
  const auto rep = check_out_dir(g.dir());
  EXPECT_TRUE(rep.errors.empty()) << joined(rep.errors);
  EXPECT_GT(rep.files_hashed, 10);
  EXPECT_GT(rep.documents_validated, 10);
  const auto cross = check_cross_references(g.dir());
  EXPECT_TRUE(cross.errors.empty()) << joined(cross.errors);
  EXPECT_GT(cross.checked, 10);
}

TEST(CheckOutDir, AChangedByteAStrayFileAndAMissingFileAreEachNamed) {
  GoldenCopy g;
  write_file_atomic(g.dir() / "summary.md", read_file(g.dir() / "summary.md") + " ");
  write_file_atomic(g.dir() / "notes.txt", "added by hand\n");
  fs::remove(g.dir() / "cases" / "numpy_matmul_512_f32.json");
  const auto rep = check_out_dir(g.dir());
  EXPECT_TRUE(mentions(rep.errors, "summary.md")) << joined(rep.errors);
  EXPECT_EQ(rep.unlisted, std::vector<std::string>{"notes.txt"});
  EXPECT_TRUE(mentions(rep.errors, "cases/numpy_matmul_512_f32.json")) << joined(rep.errors);
}

TEST(CheckOutDir, ADocumentThatBreaksItsSchemaIsNamed) {
  GoldenCopy g;
  auto doc = nlohmann::json::parse(read_file(g.dir() / "index.json"));
  doc["cases"][0]["status"] = "splendid";
  write_file_atomic(g.dir() / "index.json", doc.dump(2));
  const auto rep = check_out_dir(g.dir());
  EXPECT_TRUE(mentions(rep.errors, "index.json")) << joined(rep.errors);
}

// What the index's sections hold, made schema-valid and re-hashed nowhere: the
// index itself is not listed in its own files.
void edit_index(const GoldenCopy& g, const std::function<void(nlohmann::json&)>& edit) {
  auto doc = nlohmann::json::parse(read_file(g.dir() / "index.json"));
  edit(doc);
  write_file_atomic(g.dir() / "index.json", doc.dump(2));
}

TEST(CheckOutDir, AMergedShardsOpenResumedListStillReads) {
  GoldenCopy g;  // the schema leaves merged.shards[].resumed's items open
  edit_index(g, [](nlohmann::json& d) {
    d["schema_version"] = "jitbench.index.v5";
    d["merged"] = {{"shards", {{{"dir", "s1"}, {"shard", "1/2"}, {"index_sha256", std::string(64, 'a')},
                                {"cases", 1}, {"environment", "environment.json"}, {"resumed", {"x", 1}}}}},
                   {"missing_shards", nlohmann::json::array()}, {"missing_cases", nlohmann::json::array()},
                   {"environments", {"environment.json"}}};
  });
  const auto rep = check_out_dir(g.dir());
  EXPECT_FALSE(mentions(rep.errors, "a section is not as jitbench writes it")) << joined(rep.errors);
  EXPECT_FALSE(mentions(rep.errors, "json.exception")) << joined(rep.errors);
}

TEST(CheckOutDir, ASectionTheSchemaRefusesIsSaidOnceByTheSchema) {
  GoldenCopy g;
  edit_index(g, [](nlohmann::json& d) { d["machine"] = {{"label", 5}}; });
  const auto rep = check_out_dir(g.dir());
  EXPECT_TRUE(mentions(rep.errors, "index.json")) << joined(rep.errors);
  EXPECT_FALSE(mentions(rep.errors, "json.exception")) << joined(rep.errors);
}

TEST(CrossReferences, AnIndexWhoseMedianIsNotItsCaseFilesIsCaught) {
  GoldenCopy g;
  auto doc = nlohmann::json::parse(read_file(g.dir() / "index.json"));
  const std::string path = doc["cases"][0]["path"];
  doc["cases"][0]["cold_ttfr_median_s"] = doc["cases"][0]["cold_ttfr_median_s"].get<double>() / 2;
  write_file_atomic(g.dir() / "index.json", doc.dump(2));
  ASSERT_TRUE(check_out_dir(g.dir()).errors.empty()) << "the edit still passes the schemas and hashes";
  const auto cross = check_cross_references(g.dir());
  EXPECT_TRUE(mentions(cross.errors, path + ": its cold TTFR median is not the index's")) << joined(cross.errors);
}

}  // namespace
}  // namespace jitbench
