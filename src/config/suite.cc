#include "config/suite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <toml++/toml.h>

#include "config/catalog.h"
#include "config/limits.h"
#include "util/fs.h"
#include "util/resources.h"

namespace jitbench {
namespace {
constexpr int kMaxKeyParts = 256;

struct Error {
  std::string message;
};

std::string where(std::string_view src, const toml::source_region& r) {
  return fmt::format("{}:{}:{}", src, r.begin.line, r.begin.column);
}

[[noreturn]] void fail(std::string_view src, const toml::node& n, const std::string& what) {
  throw Error{fmt::format("{}: {}", where(src, n.source()), what)};
}

void reject_unknown_keys(std::string_view src, const toml::table& t, const std::set<std::string>& known,
                         std::string_view section) {
  for (const auto& [k, v] : t) {
    if (!known.count(std::string(k.str()))) {
      std::string list;
      for (const auto& x : known) list += (list.empty() ? "" : ", ") + x;
      throw Error{fmt::format("{}: unknown key '{}' in {} (expected one of: {})", where(src, k.source()),
                              k.str(), section, list)};
    }
  }
}

std::vector<std::string> string_list(std::string_view src, const toml::node& n, std::string_view key) {
  const auto* arr = n.as_array();
  if (!arr) fail(src, n, fmt::format("'{}' must be an array of strings", key));
  std::vector<std::string> out;
  for (const auto& e : *arr) {
    if (!e.is_string()) fail(src, e, fmt::format("'{}' must hold strings", key));
    out.push_back(*e.value<std::string>());
  }
  if (out.empty()) fail(src, n, fmt::format("'{}' must not be empty", key));
  return out;
}

void check_names(std::string_view src, const toml::node& n, const std::vector<std::string>& names,
                 const std::function<bool(std::string_view)>& valid, std::string_view what,
                 const std::string& valid_list) {
  const auto* arr = n.as_array();  // null when a single name was written
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!valid(names[i]))
      fail(src, arr ? *arr->get(i) : n, fmt::format("unknown {} '{}' (valid: {})", what, names[i], valid_list));
  }
}

// A list of names (or one name) checked and parsed into enums.
template <typename E>
std::vector<E> enum_list(std::string_view src, const toml::node& n, std::string_view key, bool (*valid)(std::string_view),
                         std::string_view what, const std::string& valid_list,
                         std::optional<E> (*parse)(std::string_view)) {
  const auto names = n.is_string() ? std::vector<std::string>{*n.value<std::string>()} : string_list(src, n, key);
  check_names(src, n, names, valid, what, valid_list);
  std::vector<E> out;
  for (const auto& name : names) out.push_back(*parse(name));
  return out;
}

long int_in_range(std::string_view src, const toml::node& n, std::string_view key, long min_value, long max_value) {
  auto v = n.value<int64_t>();
  if (!n.is_integer() || !v) fail(src, n, fmt::format("'{}' must be an integer", key));
  if (*v < min_value || *v > max_value)
    fail(src, n, fmt::format("'{}' must be between {} and {} (got {})", key, min_value, max_value, *v));
  return static_cast<long>(*v);
}

double number_in_range(std::string_view src, const toml::node& n, const char* key, double above, double at_most) {
  auto v = n.value<double>();
  if (!v || (!n.is_integer() && !n.is_floating_point())) fail(src, n, fmt::format("'{}' must be a number", key));
  if (!std::isfinite(*v) || *v <= above || *v > at_most)
    fail(src, n, fmt::format("'{}' must be more than {:g} and at most {:g} (got {:g})", key, above, at_most, *v));
  return *v;
}

// target_ci and its bounds; a fixed count beside them would be ignored, so it is refused.
void read_sampling_keys(std::string_view src, const toml::table& t, Suite& s) {
  using namespace limits;
  auto* target = t.get("target_ci");
  if (target) s.target_ci_pct = number_in_range(src, *target, "target_ci", 0, kMaxTargetCiPct);
  for (const char* fixed : {"cold_runs", "warm_runs"})
    if (target && t.get(fixed))
      fail(src, *t.get(fixed), fmt::format("'{}' and 'target_ci' exclude each other: target_ci picks the number of "
                                           "runs (bound it with min_runs and max_runs)", fixed));
  for (const char* bound : {"min_runs", "max_runs", "max_time_s"})
    if (!target && t.get(bound))
      fail(src, *t.get(bound), fmt::format("'{}' bounds 'target_ci'; add target_ci = PCT or remove it", bound));
  if (auto* n = t.get("min_runs"))
    s.min_runs = static_cast<int>(int_in_range(src, *n, "min_runs", kMinTargetRuns, kMaxColdRuns));
  if (auto* n = t.get("max_runs")) s.max_runs = static_cast<int>(int_in_range(src, *n, "max_runs", 1, kMaxColdRuns));
  if (target && s.max_runs < s.min_runs)
    fail(src, *target, fmt::format("max_runs ({}) is below min_runs ({})", s.max_runs, s.min_runs));
  if (auto* n = t.get("max_time_s")) s.max_time_s = number_in_range(src, *n, "max_time_s", 0, kMaxTimeoutS);
}

// count = ["instructions"] / ["instructions:valgrind"] / ["instructions:hardware"], count_runs = N (>= 2).
void read_count_keys(std::string_view src, const toml::table& t, Suite& s) {
  if (auto* n = t.get("count")) {
    for (const auto& v : string_list(src, *n, "count")) {
      if (v != "instructions" && v != "instructions:valgrind" && v != "instructions:hardware")
        fail(src, *n, fmt::format("'count' holds '{}': what can be counted is instructions (or instructions:valgrind, "
                                  "instructions:hardware)", v));
      s.count = true;
      const auto colon = v.find(':');
      s.count_source = colon == std::string::npos ? "" : v.substr(colon + 1);
    }
  }
  if (auto* n = t.get("count_runs"))
    s.count_runs = static_cast<int>(int_in_range(src, *n, "count_runs", 2, limits::kMaxColdRuns));
}

// What the suite is read against: the catalog (which its workload files join)
// and a resumed run's input copies.
struct SuiteReading {
  Catalog& catalog;
  const InputCopies& copies;
};

void read_suite_table(std::string_view src, const toml::table& t, Suite& s, const SuiteReading& in) {
  reject_unknown_keys(src, t, {"name", "cold_runs", "warm_iters", "warm_runs", "cache_policy", "precision", "timeout_s",
                                "workload_paths", "target_ci", "min_runs", "max_runs", "max_time_s", "anatomy",
                                "anatomy_runs", "count", "count_runs"},
                      "[suite]");
  if (auto* n = t.get("workload_paths")) {
    // Relative to the suite file, so a suite and its workloads travel together.
    const auto base = std::filesystem::path(std::string(src)).parent_path();
    for (const auto& p : string_list(src, *n, "workload_paths")) {
      const auto full = std::filesystem::path(p).is_absolute() ? std::filesystem::path(p) : base / p;
      auto added = in.catalog.with_user_workload(in.copies.path(full.string()));  // a resumed run's copy
      if (auto* err = std::get_if<std::string>(&added)) fail(src, *n, *err);
      in.catalog = std::get<Catalog>(std::move(added));
      s.workload_paths.push_back(full.string());
    }
  }
  if (auto* n = t.get("name")) {
    if (!n->is_string()) fail(src, *n, "'name' must be a string");
    s.name = *n->value<std::string>();
  }
  using namespace limits;
  if (auto* n = t.get("cold_runs")) s.cold_runs = static_cast<int>(int_in_range(src, *n, "cold_runs", 1, kMaxColdRuns));
  if (auto* n = t.get("warm_iters"))
    s.warm_iters = static_cast<int>(int_in_range(src, *n, "warm_iters", 0, kMaxWarmIters));
  if (auto* n = t.get("warm_runs")) s.warm_runs = static_cast<int>(int_in_range(src, *n, "warm_runs", 1, kMaxWarmRuns));
  if (auto* n = t.get("anatomy")) {
    if (!n->is_boolean()) fail(src, *n, "'anatomy' must be true or false");
    s.anatomy = *n->value<bool>();
  }
  if (auto* n = t.get("anatomy_runs"))
    s.anatomy_runs = static_cast<int>(int_in_range(src, *n, "anatomy_runs", 1, kMaxColdRuns));
  if (auto* n = t.get("timeout_s")) {
    auto v = n->value<double>();
    if (!v || (!n->is_integer() && !n->is_floating_point())) fail(src, *n, "'timeout_s' must be a number");
    if (!valid_timeout(*v))
      fail(src, *n, fmt::format("'timeout_s' must be a finite number of seconds > 0 and <= {:g}", kMaxTimeoutS));
    s.timeout_s = *v;
  }
  read_sampling_keys(src, t, s);
  read_count_keys(src, t, s);
  if (auto* n = t.get("cache_policy"))
    s.cache_policies = enum_list<CachePolicy>(src, *n, "cache_policy", is_cache_policy, "cache policy",
                                              cache_policy_names(), parse_cache_policy);
  // One name, or a list to measure several precisions side by side.
  if (auto* n = t.get("precision"))
    s.precisions = enum_list<Precision>(src, *n, "precision", is_precision, "precision", precision_names(),
                                        parse_precision);
}

MatrixBlock read_block(std::string_view src, const toml::table& t, const Catalog& catalog) {
  reject_unknown_keys(src, t, {"backends", "workloads", "sizes", "dtypes", "cache_policy", "environments"},
                      "[[matrix]]");
  MatrixBlock b;
  for (const char* key : {"backends", "workloads", "sizes", "dtypes"}) {
    if (!t.get(key)) fail(src, t, fmt::format("[[matrix]] block is missing '{}'", key));
  }
  b.backends = string_list(src, *t.get("backends"), "backends");
  check_names(
      src, *t.get("backends"), b.backends, [&](std::string_view x) { return catalog.find_backend(x) != nullptr; },
      "backend", catalog.backend_names());
  b.workloads = string_list(src, *t.get("workloads"), "workloads");
  check_names(
      src, *t.get("workloads"), b.workloads, [&](std::string_view w) { return catalog.is_workload(w); }, "workload",
      catalog.workload_names());
  b.dtypes = string_list(src, *t.get("dtypes"), "dtypes");
  check_names(src, *t.get("dtypes"), b.dtypes, is_dtype, "dtype", "f32, f64");
  const auto* sizes = t.get("sizes")->as_array();
  if (!sizes || sizes->empty()) fail(src, *t.get("sizes"), "'sizes' must be a non-empty array of integers");
  for (const auto& e : *sizes) b.sizes.push_back(int_in_range(src, e, "sizes", 1, limits::kMaxSize));
  if (auto* n = t.get("cache_policy"))
    b.cache_policies = enum_list<CachePolicy>(src, *n, "cache_policy", is_cache_policy, "cache policy",
                                              cache_policy_names(), parse_cache_policy);
  if (auto* n = t.get("environments")) b.environments = string_list(src, *n, "environments");
  return b;
}

EnvironmentSpec environment_block(std::string_view src, const toml::table& t) {
  reject_unknown_keys(src, t, {"name", "requirements", "python", "variables"}, "[[environments]]");
  EnvironmentSpec e;
  if (!t.get("requirements")) fail(src, t, "[[environments]] block is missing 'requirements'");
  e.requirements = string_list(src, *t.get("requirements"), "requirements");
  for (auto& r : e.requirements) {  // as --env has them: without the spaces around
    r.erase(0, r.find_first_not_of(" \t"));
    r.erase(r.find_last_not_of(" \t") + 1);
  }
  if (e.requirements.empty()) fail(src, *t.get("requirements"), "'requirements' must name at least one package");
  for (const auto& r : e.requirements)
    if (auto why = forbidden_requirement(r); !why.empty()) fail(src, *t.get("requirements"), why);
  if (auto* n = t.get("name")) {
    if (!n->is_string() || !valid_environment_name(*n->value<std::string>()))
      fail(src, *n, "'name' must be lower-case letters, digits, '.', '-', '_' (at most 64), starting with a letter "
                    "or digit");
    e.name = *n->value<std::string>();
  } else {
    e.name = default_environment_name(e.requirements);
  }
  if (auto* n = t.get("python")) {
    if (!n->is_string()) fail(src, *n, "'python' must be a string: a version (\"3.11\") or an interpreter's path");
    e.python = *n->value<std::string>();
    // An interpreter's path, relative to the suite file like its workload_paths (a version is kept as it is).
    if (e.python.find('/') != std::string::npos && std::filesystem::path(e.python).is_relative())
      e.python = (std::filesystem::absolute(std::filesystem::path(std::string(src)).parent_path()) / e.python)
                     .lexically_normal().string();
  }
  if (auto* n = t.get("variables")) {
    if (!n->is_table()) fail(src, *n, "'variables' must be a table: variables = {XLA_FLAGS = \"...\"}");
    for (const auto& [k, v] : *n->as_table()) {
      if (!v.is_string()) fail(src, v, fmt::format("variable '{}' must be a string", k.str()));
      if (auto why = forbidden_environment_variable(std::string(k.str())); !why.empty()) fail(src, v, why);
      e.variables[std::string(k.str())] = *v.value<std::string>();
    }
  }
  return e;
}

// toml++ builds one nested table per part of a dotted key, recursively: a key
// of tens of thousands of parts overflows the stack before it can complain.
// The line (1-based) of the first key or table header with kMaxKeyParts parts
// or more, scanning outside strings and comments; nullopt when none. A value
// (after '=') is no key; a ',' in an inline table starts a key again.
std::optional<std::size_t> overlong_key(std::string_view text) {
  std::size_t line = 1;
  int dots = 0;
  bool key_part = true, comment = false;
  char quote = 0;          // inside a one-line string: its quote character
  std::string_view multi;  // inside a multi-line string: its delimiter
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
      if (multi.empty()) {
        dots = 0;
        key_part = true;
        comment = false;
        quote = 0;
      }
      continue;
    }
    if (!multi.empty()) {
      if (text.substr(i, 3) == multi) {
        multi = {};
        i += 2;
      }
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (ch == '\\' && quote == '"') ++i;
      else if (ch == quote) quote = 0;
      continue;
    }
    if (text.substr(i, 3) == R"(""")" || text.substr(i, 3) == "'''") {
      multi = text.substr(i, 3);
      i += 2;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '#') {
      comment = true;
    } else if (ch == '=' || ch == ',') {
      key_part = ch == ',';
      dots = 0;
    } else if (ch == '.' && key_part && ++dots >= kMaxKeyParts) {
      return line;
    }
  }
  return std::nullopt;
}
}  // namespace

std::variant<Suite, ConfigError> parse_suite(std::string_view text, std::string_view source_name, Catalog& catalog,
                                             const InputCopies& copies) {
  Suite s;
  s.source = std::string(source_name);
  if (auto line = overlong_key(text))
    return ConfigError{fmt::format("{}:{}: a key of {} or more dotted parts (a suite needs a few); shorten it",
                                   source_name, *line, kMaxKeyParts)};
  try {
    toml::table root = toml::parse(text, source_name);
    reject_unknown_keys(source_name, root, {"suite", "matrix", "environments"}, "the suite file");
    if (auto* n = root.get("suite")) {
      if (!n->is_table()) fail(source_name, *n, "[suite] must be a table");
      read_suite_table(source_name, *n->as_table(), s, SuiteReading{catalog, copies});
    }
    auto* m = root.get("matrix");
    if (!m) throw Error{fmt::format("{}: no [[matrix]] block: a suite needs at least one", source_name)};
    if (!m->is_array_of_tables()) fail(source_name, *m, "'matrix' must be written as [[matrix]] blocks");
    for (const auto& blk : *m->as_array()) s.matrix.push_back(read_block(source_name, *blk.as_table(), catalog));
    if (auto* e = root.get("environments")) {
      if (!e->is_array_of_tables()) fail(source_name, *e, "'environments' must be written as [[environments]] blocks");
      for (const auto& blk : *e->as_array()) s.environments.push_back(environment_block(source_name, *blk.as_table()));
      if (auto dup = duplicate_environment(s.environments); !dup.empty())
        fail(source_name, *e, fmt::format("two [[environments]] are named '{}'", dup));
    }
    for (std::size_t i = 0; i < s.matrix.size(); ++i)
      for (const auto& name : s.matrix[i].environments)
        if (std::none_of(s.environments.begin(), s.environments.end(),
                         [&](const EnvironmentSpec& e) { return e.name == name; }))
          fail(source_name, *m->as_array()->get(i),
               fmt::format("[[matrix]] names environment '{}', which no [[environments]] block defines", name));
  } catch (const toml::parse_error& e) {
    return ConfigError{fmt::format("{}: {}", where(source_name, e.source()), e.description())};
  } catch (const Error& e) {
    return ConfigError{e.message};
  }
  return s;
}

std::variant<Suite, ConfigError> load_suite_file(const std::string& path, Catalog& catalog,
                                                 const InputCopies& copies) {
  std::string text;
  try {
    text = read_file(copies.path(path), /*follow_link=*/true);
  } catch (const std::exception& e) {
    return ConfigError{fmt::format("cannot read suite file '{}': {}", path, e.what())};
  }
  return parse_suite(text, path, catalog, copies);  // named as given: its workload_paths resolve as they did
}

Suite default_suite() {
  auto text = resource("default.toml");
  Catalog catalog = Catalog::builtin();
  auto r = parse_suite(*text, "<embedded default.toml>", catalog);
  // The embedded suite is checked by a unit test; failing here is a build defect.
  if (auto* e = std::get_if<ConfigError>(&r)) throw std::logic_error(e->message);
  return std::get<Suite>(r);
}

namespace {
// The backends a user workload runs on when `--workload-path` alone plans it.
std::variant<std::vector<std::string>, ConfigError> user_workload_backends(const Catalog& catalog,
                                                                            const WorkloadInfo& w, bool gpu_seen) {
  const auto where = fmt::format("workload file {}", w.path);
  if (!w.backends.empty()) {
    std::vector<std::string> here;  // a GPU backend only where a GPU is seen, as without CATALOG backends
    for (const auto& b : w.backends) {
      const auto info = catalog.find_backend(b);
      if (!info)
        return ConfigError{fmt::format("{}: CATALOG backends names '{}', which is not a backend (valid: {})", where,
                                       b, catalog.backend_names())};
      if (info->device != "gpu" || gpu_seen) here.push_back(b);
    }
    if (here.empty())
      return ConfigError{fmt::format("{}: CATALOG backends names only GPU backends ({}) and no GPU is seen here: "
                                     "add a CPU backend, or run where a GPU is", where, fmt::join(w.backends, ", "))};
    return here;
  }
  std::vector<std::string> out, known;  // known: the frameworks the catalog's backends run
  for (const auto& b : catalog.backends()) {
    if (b->worker != WorkerKind::Python || b->framework.empty()) continue;
    if (std::find(known.begin(), known.end(), b->framework) == known.end()) known.push_back(b->framework);
    if (std::find(w.frameworks.begin(), w.frameworks.end(), b->framework) != w.frameworks.end() &&
        (b->device != "gpu" || gpu_seen))
      out.push_back(b->name);
  }
  if (out.empty())
    return ConfigError{fmt::format(
        "{}: no backend here runs it: its IMPLEMENTATIONS name {} (jitbench runs {}{}); add one, or list CATALOG "
        "backends", where, w.frameworks.empty() ? std::string("no framework") : fmt::format("{}", fmt::join(w.frameworks, ", ")),
        fmt::join(known, ", "), gpu_seen ? "" : "; GPU backends only where a GPU is seen")};
  return out;
}
}  // namespace

std::variant<Suite, ConfigError> workload_files_suite(const Catalog& catalog, const std::vector<std::string>& workloads,
                                                      bool gpu_seen) {
  Suite s = default_suite();
  s.matrix.clear();
  s.name = fmt::format("{}", fmt::join(workloads, "+"));
  s.source = "<--workload-path>";
  s.warm_iters.reset();  // the default suite's 30 is its own: a user's function's warm calls are calibrated
  for (const auto& name : workloads) {
    const auto w = catalog.find_workload(name);
    if (!w || !w->record_loaded)
      return ConfigError{fmt::format("workload '{}': its file could not be read (the line above says why): fix it, "
                                     "or give --suite or --cases", name)};
    auto backends = user_workload_backends(catalog, *w, gpu_seen);
    if (auto* e = std::get_if<ConfigError>(&backends)) return *e;
    MatrixBlock blk;
    blk.backends = std::get<std::vector<std::string>>(std::move(backends));
    blk.workloads = {name};
    blk.sizes = w->sizes.empty() ? std::vector<long>{kUserWorkloadDefaultSize} : w->sizes;
    blk.dtypes = w->dtypes.empty() ? std::vector<std::string>{"f32"} : w->dtypes;
    s.matrix.push_back(std::move(blk));
  }
  return s;
}

}  // namespace jitbench
