#include "validate/check_out_dir.h"

#include <fmt/format.h>

#include <set>

#include "artifacts/out_dir.h"
#include "export/schema.h"
#include "results/read.h"
#include "util/fs.h"
#include "util/json_parse.h"
#include "util/sha256.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
// Parses and schema-checks one JSON file; returns the document (null on error).
json check_document(const fs::path& file, const std::string& label, ValidationReport& rep) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const std::exception& e) {
    rep.errors.push_back(label + ": " + e.what());
    return nullptr;
  }
  auto parsed = parse_json(text);
  text = std::string();  // the document is what is kept: the text is not needed twice
  if (auto* e = std::get_if<std::string>(&parsed)) {
    rep.errors.push_back(label + ": " + *e);
    return nullptr;
  }
  json doc = std::get<json>(std::move(parsed));
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
  check_document(ml / "ml_suite.json", "ml/ml_suite.json", rep);
  auto entries = read_ml_index(ml / "ml_suite.json");
  if (auto* e = std::get_if<std::string>(&entries)) {
    rep.errors.push_back(*e);
    return;
  }
  for (const auto& c : std::get<std::vector<MlIndexEntry>>(entries)) {
    const auto label = "ml/" + c.path;
    if (crosses_link(ml, c.path) || !fs::is_regular_file(ml / c.path)) {
      rep.errors.push_back(label + ": listed in ml/ml_suite.json but missing");
      continue;
    }
    if (sha256_file(ml / c.path) != c.sha256) rep.errors.push_back(label + ": sha256 differs from ml/ml_suite.json");
  }
}

// Every file the index lists: present, hashed as listed, and valid if JSON.
std::set<std::string> check_listed(const fs::path& dir, const RunIndex& index, ValidationReport& rep) {
  std::set<std::string> listed;
  for (const auto& f : index.files) {
    listed.insert(f.path);
    const fs::path p = dir / f.path;  // read_index accepts only paths that stay inside
    if (crosses_link(dir, f.path)) {
      rep.errors.push_back(f.path + ": listed in the index but missing, or reached through a symbolic link");
      continue;
    }
    if (!fs::is_regular_file(p)) {
      rep.errors.push_back(f.path + ": listed in the index but missing");
      continue;
    }
    ++rep.files_hashed;
    if (sha256_file(p) != f.sha256) rep.errors.push_back(f.path + ": sha256 differs from the index");
    if (p.extension() == ".json") check_document(p, f.path, rep);
  }
  for (const auto& c : index.cases)
    if (!listed.count(c.path)) rep.errors.push_back(c.path + ": case file not in files");
  return listed;
}
}  // namespace

ValidationReport check_out_dir(const fs::path& dir) {
  ValidationReport rep;
  const fs::path index_path = dir / kIndexFile;
  if (!fs::exists(index_path)) {
    rep.errors.push_back(fmt::format("{}: no {} here; is this a jitbench out dir?", dir.string(), kIndexFile));
    return rep;
  }
  check_document(index_path, kIndexFile, rep);
  auto index = read_index(index_path);
  if (auto* e = std::get_if<std::string>(&index)) {
    rep.errors.push_back(*e);
    return rep;
  }
  const auto listed = check_listed(dir, std::get<RunIndex>(index), rep);
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const auto rel = fs::relative(e.path(), dir);
    if (!excluded_from_index(rel) && !listed.count(rel.string())) {
      rep.errors.push_back(rel.string() + ": present but not listed in the index");
      rep.unlisted.push_back(rel.string());
    }
  }
  check_ml_export(dir, rep);
  return rep;
}

}  // namespace jitbench
