#include "config/environments.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace jitbench {

bool valid_environment_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  const auto ok = [](char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)); };
  if (!ok(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return ok(c) || c == '.' || c == '-' || c == '_'; });
}

std::string default_environment_name(const std::vector<std::string>& requirements) {
  std::string name, first = requirements.empty() ? std::string("env") : requirements.front();
  first = first.substr(0, first.find('@'));  // a direct reference: its name alone
  for (char c : first) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) name += static_cast<char>(std::tolower(u));
    else if (c == '.' || c == '_') name += c;
    else if (!name.empty() && name.back() != '-') name += '-';
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  if (name.size() > 64) name.resize(64);
  if (name.empty() || !valid_environment_name(name)) name = "env-" + name;
  return valid_environment_name(name) ? name : "env";
}

std::variant<EnvironmentSpec, std::string> parse_environment_spec(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return fmt::format("--env '{}': {} (write [NAME:]REQ;REQ..., e.g. 'old:jax==0.4.38;jaxlib==0.4.38')", text, why);
  };
  EnvironmentSpec s;
  std::string rest = text;
  // NAME: only when what precedes the first ':' is a name (a URL requirement has ':' too).
  if (const auto colon = text.find(':'); colon != std::string::npos && valid_environment_name(text.substr(0, colon))) {
    s.name = text.substr(0, colon);
    rest = text.substr(colon + 1);
  }
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto end = rest.find(';', start);
    std::string req = rest.substr(start, end == std::string::npos ? std::string::npos : end - start);
    req.erase(0, req.find_first_not_of(" \t"));
    req.erase(req.find_last_not_of(" \t") + 1);
    if (!req.empty()) s.requirements.push_back(req);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (s.requirements.empty()) return bad("no requirement");
  if (s.name.empty()) s.name = default_environment_name(s.requirements);
  return s;
}

std::string apply_environment_variable(std::vector<EnvironmentSpec>& specs, const std::string& text) {
  const auto colon = text.find(':'), eq = text.find('=', colon == std::string::npos ? 0 : colon);
  if (colon == std::string::npos || eq == std::string::npos || eq == colon + 1)
    return fmt::format("--env-var '{}': write NAME:VARIABLE=VALUE (NAME an environment of --env or the suite)", text);
  const auto name = text.substr(0, colon), var = text.substr(colon + 1, eq - colon - 1);
  const auto it = std::find_if(specs.begin(), specs.end(), [&](const EnvironmentSpec& s) { return s.name == name; });
  if (it == specs.end()) {
    std::string names;
    for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
    return fmt::format("--env-var '{}': no environment named '{}' (there are: {})", text, name,
                       names.empty() ? "none" : names);
  }
  if (auto why = forbidden_environment_variable(var); !why.empty()) return fmt::format("--env-var '{}': {}", text, why);
  it->variables[var] = text.substr(eq + 1);
  return "";
}

std::string forbidden_environment_variable(const std::string& name) {
  if (name != kTestGpuOnCpu) return "";
  return fmt::format("{} is a test-only switch for the whole run, never one environment's: set it in jitbench's "
                     "own environment, or not at all", kTestGpuOnCpu);
}

std::string duplicate_environment(const std::vector<EnvironmentSpec>& specs) {
  std::set<std::string> seen;
  for (const auto& s : specs)
    if (!seen.insert(s.name).second) return s.name;
  return "";
}

}  // namespace jitbench
