#include "export/json/schema.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <map>
#include <memory>
#include <stdexcept>

#include "util/resources.h"

namespace jitbench {
namespace {

std::string file_for(const std::string& v) { return v + ".schema.json"; }

// Parsed schemas are cached: validate walks many files of the same kind.
const valijson::Schema* schema_for(const std::string& version) {
  static std::map<std::string, std::unique_ptr<valijson::Schema>> cache;
  if (auto it = cache.find(version); it != cache.end()) return it->second.get();
  auto text = resource(file_for(version));
  if (!text) return nullptr;
  const auto doc = nlohmann::json::parse(*text);
  auto schema = std::make_unique<valijson::Schema>();
  // The repo's schemas declare draft 2020-12 but use only keywords whose
  // meaning is the same in draft 7, which valijson implements; the Python
  // test suite cross-checks them with a full 2020-12 validator.
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  parser.populateSchema(adapter, *schema);
  return (cache[version] = std::move(schema)).get();
}
}  // namespace

bool has_schema(const std::string& schema_version) { return resource(file_for(schema_version)).has_value(); }

std::vector<std::string> validate_against(const nlohmann::json& doc, const std::string& schema_version) {
  const auto* schema = schema_for(schema_version);
  if (!schema) return {"no schema named " + schema_version};
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(*schema, target, &results)) return {};
  std::vector<std::string> out;
  valijson::ValidationResults::Error err;
  while (results.popError(err)) {
    std::string path;
    for (const auto& c : err.context) path += c;
    out.push_back(path + ": " + err.description);
  }
  return out;
}

}  // namespace jitbench
