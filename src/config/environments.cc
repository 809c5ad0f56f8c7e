#include "config/environments.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <regex>
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

std::string release_environment_name(const std::string& package, const std::string& version) {
  std::string name = default_environment_name({package}) + "-";
  for (char c : version) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.' || c == '-') name += static_cast<char>(std::tolower(u));
    else if (c == '_') name += "__";
    else if (c == '+') name += "_p";
    else if (c == '!') name += "_e";
    else name += fmt::format("_x{:02x}", u);
  }
  if (name.size() <= 64) return name;
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the whole name: the part cut off still tells names apart
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return fmt::format("{}-{:08x}", name.substr(0, 55), static_cast<std::uint32_t>(h ^ (h >> 32)));
}

std::vector<std::string> split_requirements(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= text.size();) {
    const auto end = std::min(text.find(';', start), text.size());
    std::string req = text.substr(start, end - start);
    req.erase(0, req.find_first_not_of(" \t"));
    req.erase(req.find_last_not_of(" \t") + 1);
    if (!req.empty()) out.push_back(req);
    start = end + 1;
  }
  return out;
}

std::variant<EnvironmentSpec, std::string> parse_environment_spec(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return fmt::format("--env '{}': {} (write [NAME:]REQ;REQ..., e.g. 'old:jax==0.4.38;jaxlib==0.4.38')", text, why);
  };
  EnvironmentSpec s;
  std::string rest = text;
  // NAME: what precedes the first ':' when it is made of a name's characters
  // (a URL requirement has ':' too, after a scheme followed by "//").
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const auto head = text.substr(0, colon);
    const bool name_like = !head.empty() && text.compare(colon + 1, 2, "//") != 0 &&
                           std::all_of(head.begin(), head.end(), [](char c) {
                             return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
                                    c == ' ';
                           });
    if (name_like && !valid_environment_name(head))
      return bad(fmt::format("the name '{}' is not one: lower-case letters, digits, '.', '-', '_', at most 64, "
                             "starting with a letter or digit", head));
    if (name_like) {
      s.name = head;
      rest = text.substr(colon + 1);
    }
  }
  s.requirements = split_requirements(rest);
  if (s.requirements.empty()) return bad("no requirement");
  for (const auto& r : s.requirements)
    if (auto why = forbidden_requirement(r); !why.empty()) return fmt::format("--env '{}': {}", text, why);
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

bool valid_package_name(const std::string& name) {
  static const std::regex pep508("[a-z0-9]([a-z0-9._-]*[a-z0-9])?", std::regex::icase);
  return std::regex_match(name, pep508);
}

bool valid_release_version(const std::string& version) {
  // PEP 440's public and local versions (packaging's VERSION_PATTERN).
  static const std::regex pep440(
      R"(v?([0-9]+!)?[0-9]+(\.[0-9]+)*([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?)"
      R"(((-[0-9]+)|([-_.]?(post|rev|r)[-_.]?[0-9]*))?([-_.]?dev[-_.]?[0-9]*)?(\+[a-z0-9]+([-_.][a-z0-9]+)*)?)",
      std::regex::icase);
  return std::regex_match(version, pep440);
}

std::string forbidden_requirement(const std::string& requirement) {
  const auto first = requirement.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || requirement[first] != '-') return "";
  const auto option = requirement.substr(first, requirement.find('=') == std::string::npos
                                                    ? std::string::npos : requirement.find('=') - first);
  return fmt::format("'{}' is an installer option, not a requirement: a requirement names a package "
                     "(numpy==2.1.0, jax[cpu]>=0.4)", option);
}

std::string forbidden_environment_variable(const std::string& name) {
  static const std::regex valid("[A-Za-z_][A-Za-z0-9_]*");
  if (!std::regex_match(name, valid))
    return fmt::format("'{}' is not a variable's name (letters, digits and '_', not starting with a digit)", name);
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
