#pragma once
// Parsing a JSON text jitbench did not write itself (a worker's line, an
// artifact read back, a file a user passed): nesting bounded before any
// recursion (nlohmann's parser is iterative, but copying, comparing, dumping
// and validating a document recurse once per level: a line nested 70,000 deep
// would overflow the stack), and text written back with bytes that are not
// UTF-8 replaced instead of thrown over.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <variant>

namespace jitbench {

// The deepest nesting jitbench reads, as TOML's own limit (toml++).
inline constexpr int kMaxJsonDepth = 256;

// The nesting depth of arrays and objects in text (brackets inside strings do
// not count), stopping as soon as it passes `limit`. Linear, no recursion.
int json_depth(std::string_view text, int limit = kMaxJsonDepth);

// The document, or what is wrong in a few words ("not valid JSON", "nested
// deeper than 256 levels").
std::variant<nlohmann::json, std::string> parse_json(std::string_view text);

// j as text; a string that is not valid UTF-8 (a path or an environment value
// the OS handed over) has its invalid bytes replaced by U+FFFD, never an error.
std::string dump_json(const nlohmann::json& j, int indent = -1);

// True when s is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF): what a JSON string can hold as it is.
bool is_valid_utf8(std::string_view s);

}  // namespace jitbench
