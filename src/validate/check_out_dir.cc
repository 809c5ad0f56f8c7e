#include "validate/check_out_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include <set>

#include "artifacts/out_dir.h"
#include "export/json/schema.h"
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
    rep.add(label, Problem::Other, label + ": " + e.what());
    return nullptr;
  }
  auto parsed = parse_json(text);
  text = std::string();  // the document is what is kept: the text is not needed twice
  if (auto* e = std::get_if<std::string>(&parsed)) {
    rep.add(label, Problem::Other, label + ": " + *e);
    return nullptr;
  }
  json doc = std::get<json>(std::move(parsed));
  if (!doc.is_object() || !doc.contains("schema_version") || !doc["schema_version"].is_string()) return doc;
  const auto version = doc["schema_version"].get<std::string>();
  if (!has_schema(version)) {
    rep.add(label, Problem::Other, fmt::format("{}: unknown schema_version '{}'", label, version));
    return nullptr;
  }
  ++rep.documents_validated;
  for (const auto& e : validate_against(doc, version)) rep.add(label, Problem::Other, fmt::format("{}: {}", label, e));
  return doc;
}

void check_ml_export(const fs::path& dir, ValidationReport& rep) {
  const fs::path ml = dir / "ml";
  if (!fs::exists(ml / "ml_suite.json")) return;
  check_document(ml / "ml_suite.json", "ml/ml_suite.json", rep);
  auto entries = read_ml_index(ml / "ml_suite.json");
  if (auto* e = std::get_if<std::string>(&entries)) {
    rep.add("ml/ml_suite.json", Problem::HashDiffers, *e);
    return;
  }
  for (const auto& c : std::get<std::vector<MlIndexEntry>>(entries)) {
    const auto label = "ml/" + c.path;
    if (crosses_link(ml, c.path) || !fs::is_regular_file(ml / c.path)) {
      rep.add(label, Problem::HashDiffers, label + ": listed in ml/ml_suite.json but missing");
      continue;
    }
    if (sha256_file(ml / c.path) != c.sha256)
      rep.add(label, Problem::HashDiffers, label + ": sha256 differs from ml/ml_suite.json");
  }
}

// Every file the index lists: present, hashed as listed, and valid if JSON.
std::set<std::string> check_listed(const fs::path& dir, const RunIndex& index, ValidationReport& rep) {
  std::set<std::string> listed;
  for (const auto& f : index.files) {
    listed.insert(f.path);
    const fs::path p = dir / f.path;  // read_index accepts only paths that stay inside
    if (crosses_link(dir, f.path)) {
      rep.add(f.path, Problem::Unsafe, f.path + ": listed in the index but missing, or reached through a symbolic link");
      continue;
    }
    if (!fs::is_regular_file(p)) {
      rep.add(f.path, Problem::Other, f.path + ": listed in the index but missing");
      continue;
    }
    ++rep.files_hashed;
    if (sha256_file(p) != f.sha256) rep.add(f.path, Problem::HashDiffers, f.path + ": sha256 differs from the index");
    if (p.extension() == ".json") check_document(p, f.path, rep);
  }
  for (const auto& c : index.cases)
    if (!listed.count(c.path)) rep.add(c.path, Problem::Other, c.path + ": case file not in files");
  return listed;
}
// started_at and finished_at are times as jitbench writes them (UTC, to the
// second), or absent: other tools turn them into names (publish's snapshot id).
void check_times(const RunIndex& index, ValidationReport& rep) {
  static const std::regex utc(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)");
  for (const auto& [key, value] : {std::pair{"started_at", &index.started_at}, {"finished_at", &index.finished_at}})
    if (!value->empty() && !std::regex_match(*value, utc))
      rep.add(kIndexFile, Problem::Other,
              fmt::format("{}: {} '{}' is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)", kIndexFile, key, *value));
}
}  // namespace

namespace {
const char* special_kind(fs::file_type t) {
  switch (t) {
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block:
    case fs::file_type::character: return "a device";
    default: return "not a regular file or directory";
  }
}

// Everything below dir, no link followed: a file the index does not list, and
// anything jitbench never makes there (a link, wherever it points, named by its
// own path; a FIFO, a socket, a device). Compile caches are the frameworks': only
// cache/ and its directories themselves are looked at.
void check_entries(const fs::path& dir, const std::set<std::string>& listed, ValidationReport& rep) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(dir);
    const auto type = it->symlink_status(ec).type();
    if (type == fs::file_type::directory) {
      if (rel.begin() != rel.end() && *rel.begin() == "cache" && std::distance(rel.begin(), rel.end()) >= 2)
        it.disable_recursion_pending();
      continue;
    }
    if (type == fs::file_type::regular) {
      if (!excluded_from_index(rel) && !listed.count(rel.string())) {
        rep.add(rel.string(), Problem::Unlisted, rel.string() + ": present but not listed in the index");
        rep.unlisted.push_back(rel.string());
      }
      continue;
    }
    if (listed.count(rel.string())) continue;  // said already: listed, but not a regular file
    rep.add(rel.string(), Problem::Unsafe,
            fmt::format("{}: {} in the out dir, where jitbench makes only files and directories: remove it",
                        rel.string(), special_kind(type)));
  }
  if (ec) rep.add("", Problem::Other, fmt::format("{}: cannot be listed: {}", dir.string(), ec.message()));
}
}  // namespace

ValidationReport check_out_dir(const fs::path& dir) {
  ValidationReport rep;
  const fs::path index_path = dir / kIndexFile;
  if (!fs::exists(fs::symlink_status(index_path))) {
    rep.add("", Problem::Other, fmt::format("{}: no {} here; is this a jitbench out dir?", dir.string(), kIndexFile));
    return rep;
  }
  const auto errors_before = rep.errors.size();
  check_document(index_path, kIndexFile, rep);
  auto index = read_index(index_path);
  if (auto* e = std::get_if<std::string>(&index)) {
    // The schema's lines already say what is wrong with it: the reader's would say it again.
    if (rep.errors.size() == errors_before) rep.add(kIndexFile, Problem::Other, *e);
    return rep;
  }
  check_times(std::get<RunIndex>(index), rep);
  const auto listed = check_listed(dir, std::get<RunIndex>(index), rep);
  check_entries(dir, listed, rep);
  check_ml_export(dir, rep);
  // What every reader of the run checks beyond the schemas (results/read.cc:
  // a peak RSS below the copy it holds, the anatomy's nesting rule, ...):
  // validate refuses what report, compare and jitbench.load() refuse.
  if (rep.errors.empty())
    if (auto run = read_run(dir); auto* e = std::get_if<std::string>(&run))
      rep.add("", Problem::Other, *e);
  return rep;
}

std::vector<std::string> check_published_report(const fs::path& run_dir, int& checked) {
  std::vector<std::string> errors;
  const fs::path snap = run_dir / ".." / "snapshot_index.json";
  if (!fs::is_regular_file(snap)) return errors;
  auto parsed = parse_json(read_file(snap));
  if (auto* e = std::get_if<std::string>(&parsed)) return {"snapshot_index.json: " + *e};
  const auto& doc = std::get<nlohmann::json>(parsed);
  std::set<std::string> listed;
  const auto artifacts = doc.value("artifacts", nlohmann::json::array());
  // A snapshot published before publish listed its report: report/ is not covered (verify says so).
  if (std::none_of(artifacts.begin(), artifacts.end(),
                   [](const nlohmann::json& a) { return a.value("path", "").rfind("run/report/", 0) == 0; }))
    return errors;
  for (const auto& a : artifacts) {
    const auto path = a.value("path", "");
    if (path.rfind("run/report/", 0) != 0) continue;
    listed.insert(path.substr(4));
    const fs::path file = run_dir / path.substr(4);
    ++checked;
    if (!fs::is_regular_file(file) || fs::is_symlink(file)) errors.push_back(path.substr(4) + ": listed in the snapshot index but missing");
    else if (sha256_file(file) != a.value("sha256", "")) errors.push_back(path.substr(4) + ": sha256 differs from the snapshot index");
  }
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(run_dir / "report", ec)) {
    const auto rel = e.path().lexically_relative(run_dir).string();  // the link's own path, not its target's
    if (e.is_symlink()) errors.push_back(rel + ": a symbolic link in a published report");
    else if (e.is_regular_file() && !listed.count(rel)) errors.push_back(rel + ": present but not in the snapshot index");
  }
  // The snapshot index itself, as the site's registry recorded it.
  const fs::path registry = run_dir / ".." / ".." / ".." / "registry.json";
  if (fs::is_regular_file(registry))
    if (auto reg = read_registry(registry); auto* entries = std::get_if<std::vector<RegistryEntry>>(&reg)) {
      const auto id = fs::weakly_canonical(run_dir).parent_path().filename().string();
      const auto it = std::find_if(entries->begin(), entries->end(), [&](const RegistryEntry& r) { return r.id == id; });
      if (it == entries->end()) errors.push_back("snapshot " + id + ": not in the site's registry.json");
      else if (it->snapshot_index_sha256 != sha256_file(snap))
        errors.push_back("snapshot_index.json: sha256 differs from the site's registry.json");
    }
  return errors;
}

}  // namespace jitbench
