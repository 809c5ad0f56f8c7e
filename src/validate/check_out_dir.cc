#include "validate/check_out_dir.h"

#include <fmt/format.h>

#include <set>

#include "artifacts/out_dir.h"
#include "export/ml_suite.h"
#include "results/json.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "validate/schema.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
// Parses and schema-checks one JSON file; returns the document (null on error).
json check_document(const fs::path& file, const std::string& label, ValidationReport& rep) {
  json doc = json::parse(read_file(file), nullptr, false);
  if (doc.is_discarded()) {
    rep.errors.push_back(label + ": not valid JSON");
    return nullptr;
  }
  if (!doc.is_object() || !doc.contains("schema_version") || !doc["schema_version"].is_string()) return doc;
  const auto version = doc["schema_version"].get<std::string>();
  if (!has_schema(version)) {
    rep.errors.push_back(fmt::format("{}: unknown schema_version '{}'", label, version));
    return nullptr;
  }
  ++rep.documents_validated;
  for (const auto& e : validate_against(doc, version)) rep.errors.push_back(fmt::format("{}: {}", label, e));
  return doc;
}

void check_ml_export(const fs::path& dir, ValidationReport& rep) {
  const fs::path ml = dir / "ml";
  if (!fs::exists(ml / "ml_suite.json")) return;
  json index = check_document(ml / "ml_suite.json", "ml/ml_suite.json", rep);
  if (!index.is_object() || !index.contains("cases")) return;
  for (const auto& c : index["cases"]) {
    const auto rel = c.value("path", "");
    const auto label = "ml/" + rel;
    if (!fs::exists(ml / rel)) {
      rep.errors.push_back(label + ": listed in ml/ml_suite.json but missing");
      continue;
    }
    if (sha256_file(ml / rel) != c.value("sha256", ""))
      rep.errors.push_back(label + ": sha256 differs from ml/ml_suite.json");
  }
}
}  // namespace

ValidationReport check_out_dir(const fs::path& dir) {
  ValidationReport rep;
  const fs::path index_path = dir / kIndexFile;
  if (!fs::exists(index_path)) {
    rep.errors.push_back(fmt::format("{}: no {} here; is this a jitbench out dir?", dir.string(), kIndexFile));
    return rep;
  }
  json index = check_document(index_path, kIndexFile, rep);
  if (!index.is_object() || !index.contains("files") || !index["files"].is_array()) return rep;

  std::set<std::string> listed;
  for (const auto& f : index["files"]) {
    const auto rel = f.value("path", "");
    listed.insert(rel);
    const fs::path p = dir / rel;
    if (rel.empty() || rel.find("..") != std::string::npos) {
      rep.errors.push_back(fmt::format("{}: bad path in index", rel));
      continue;
    }
    if (!fs::is_regular_file(p)) {
      rep.errors.push_back(rel + ": listed in the index but missing");
      continue;
    }
    ++rep.files_hashed;
    if (sha256_file(p) != f.value("sha256", "")) rep.errors.push_back(rel + ": sha256 differs from the index");
    if (p.extension() == ".json") check_document(p, rel, rep);
  }
  for (const auto& c : index.value("cases", json::array()))
    if (!listed.count(c.value("path", ""))) rep.errors.push_back(c.value("path", "?") + ": case file not in files");

  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const auto rel = fs::relative(e.path(), dir);
    if (!excluded_from_index(rel) && !listed.count(rel.string()))
      rep.errors.push_back(rel.string() + ": present but not listed in the index");
  }
  check_ml_export(dir, rep);
  return rep;
}

}  // namespace jitbench
