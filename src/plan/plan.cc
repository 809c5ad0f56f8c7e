#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "config/catalog.h"
#include "config/limits.h"

namespace jitbench {

std::string make_case_id(const std::string& backend, const std::string& workload, long n, const std::string& dtype,
                         CachePolicy policy, Precision precision, const std::string& env) {
  auto id = fmt::format("{}_{}_{}_{}", backend, workload, n, dtype);
  if (policy != CachePolicy::ColdCache) id += fmt::format("__{}", to_string(policy));
  if (precision != Precision::Default) id += fmt::format("__{}", to_string(precision));
  if (!env.empty()) id += "__env-" + env;
  return id;
}

std::string group_label(const std::vector<std::string>& ids) {
  if (ids.size() == 1) return ids.front();
  std::string all;
  for (const auto& id : ids) all += (all.empty() ? "" : ", ") + id;
  if (all.size() <= 100) return fmt::format("{} cases interleaved: {}", ids.size(), all);
  return fmt::format("{} cases interleaved: {} and {} more", ids.size(), ids.empty() ? "" : ids.front(),
                     ids.empty() ? 0 : ids.size() - 1);
}

std::string without_environment(const std::string& case_id) {
  const auto at = case_id.rfind("__env-");
  return at == std::string::npos ? case_id : case_id.substr(0, at);
}

Case make_case(const Catalog& catalog, const std::string& backend, const std::string& workload, long n,
               const std::string& dtype, CachePolicy policy, Precision precision, const std::string& env) {
  Case c;
  c.id = make_case_id(backend, workload, n, dtype, policy, precision, env);
  c.backend = backend;
  c.workload = workload;
  c.n = n;
  c.dtype = dtype;
  c.cache_policy = policy;
  c.precision = precision;
  c.env = env;
  c.backend_info = catalog.find_backend(backend);
  c.workload_info = catalog.find_workload(workload);
  if (const auto& b = c.backend_info) {
    c.jit = b->jit;
    c.baseline = b->baseline;
    c.aot_crosscheck = b->aot_crosscheck;
    c.gpu = b->wants_gpu;
    c.writes_cache_by_default = b->writes_cache_by_default;
  }
  if (c.workload_info) c.pair = c.workload_info->pair;
  return c;
}

Case make_case(const std::string& backend, const std::string& workload, long n, const std::string& dtype,
               CachePolicy policy, Precision precision, const std::string& env) {
  return make_case(Catalog::builtin(), backend, workload, n, dtype, policy, precision, env);
}

std::optional<WorkloadInfo> workload_record(const Case& c, const nlohmann::json& reported) {
  return workload_record(c.workload_info.get(), reported);
}

namespace {
// "<workload>_<n>" naming a known workload: one spec per dtype of its record.
std::optional<std::vector<CaseSpec>> without_dtype(const std::string& text, const Catalog& catalog) {
  const auto last = text.rfind('_');
  if (last == std::string::npos || last == 0) return std::nullopt;
  const auto n_text = text.substr(last + 1);
  const auto w = catalog.find_workload(text.substr(0, last));
  if (!w || n_text.empty() || n_text.size() > 12 || !std::all_of(n_text.begin(), n_text.end(), ::isdigit) ||
      std::stol(n_text) < 1)
    return std::nullopt;
  std::vector<CaseSpec> out;
  for (const auto& d : w->dtypes.empty() ? std::vector<std::string>{"f32"} : w->dtypes)
    out.push_back({w->name, std::stol(n_text), d});
  return out;
}
}  // namespace

std::variant<std::vector<CaseSpec>, std::string> parse_case_spec(const std::string& text, const Catalog& catalog) {
  if (auto specs = without_dtype(text, catalog)) return *specs;
  const auto bad = [&](const std::string& why) {
    return fmt::format("bad case '{}': {} (write <workload>_<n>_<f32|f64>, e.g. matmul_512_f32, or <workload>_<n> "
                       "for the workload's dtypes)", text, why);
  };
  const auto last = text.rfind('_');
  if (last == std::string::npos || last == 0) return bad("no dtype");
  const auto mid = text.rfind('_', last - 1);
  if (mid == std::string::npos || mid == 0) return bad("no size");
  CaseSpec s;
  s.workload = text.substr(0, mid);
  s.dtype = text.substr(last + 1);
  const auto n_text = text.substr(mid + 1, last - mid - 1);
  if (!catalog.is_workload(s.workload))
    return bad(fmt::format("unknown workload '{}'; valid: {}", s.workload, catalog.workload_names()));
  if (!is_dtype(s.dtype)) return bad(fmt::format("unknown dtype '{}'; valid: f32, f64", s.dtype));
  if (n_text.empty() || !std::all_of(n_text.begin(), n_text.end(), ::isdigit) || n_text.size() > 12)
    return bad(fmt::format("size '{}' is not a positive integer", n_text));
  s.n = std::stol(n_text);
  if (s.n < 1) return bad("size must be >= 1");
  return std::vector<CaseSpec>{s};
}

namespace {
// Distinct backends named anywhere in the suite (an upper bound per --cases entry).
std::size_t backends_in(const Suite& suite) {
  std::set<std::string> all;
  for (const auto& blk : suite.matrix) all.insert(blk.backends.begin(), blk.backends.end());
  return all.size();
}

// How many cases make_plan would make (an upper bound with --cases), before it makes any.
template <typename PoliciesFor, typename Wanted>
long double planned_count(const Suite& suite, const Selection& sel, std::size_t precisions, PoliciesFor policies_for,
                          Wanted wanted_backend) {
  long double planned = 0;
  if (!sel.cases.empty()) {
    const long double backends = sel.backends.empty() ? static_cast<long double>(backends_in(suite)) : sel.backends.size();
    return sel.cases.size() * backends * precisions * policies_for(nullptr).size();
  }
  for (const auto& blk : suite.matrix) {
    long double backends = 0;
    for (const auto& b : blk.backends) backends += wanted_backend(b) ? 1 : 0;
    planned += backends * blk.workloads.size() * blk.sizes.size() * blk.dtypes.size() * precisions *
               policies_for(&blk).size();
  }
  return planned;
}
// The environments the suite runs backend b with workload w in: the union of
// the blocks that pair them; empty when one of them names none (every one).
std::set<std::string> environments_of(const Suite& suite, const std::string& b, const std::string& w) {
  std::set<std::string> envs;
  for (const auto& blk : suite.matrix) {
    if (std::find(blk.workloads.begin(), blk.workloads.end(), w) == blk.workloads.end() ||
        std::find(blk.backends.begin(), blk.backends.end(), b) == blk.backends.end())
      continue;
    if (blk.environments.empty()) return {};
    envs.insert(blk.environments.begin(), blk.environments.end());
  }
  return envs;
}

// --cases: each named case on --backends if given, else on every backend the
// suite pairs with that workload (so `--cases matmul_512_f32` never drags plain
// Python through a 512^3 loop unless asked to), in the environments the suite
// pairs them with. "" or why none runs.
template <typename Add>
std::string add_named_cases(const Suite& suite, const Selection& sel, Add add) {
  for (const auto& spec : sel.cases) {
    std::vector<std::string> bs = sel.backends;
    if (bs.empty()) {
      for (const auto& blk : suite.matrix)
        if (std::find(blk.workloads.begin(), blk.workloads.end(), spec.workload) != blk.workloads.end())
          for (const auto& b : blk.backends)
            if (std::find(bs.begin(), bs.end(), b) == bs.end()) bs.push_back(b);
    }
    if (bs.empty())
      return fmt::format("no backend runs workload '{}' in suite '{}': add --backends", spec.workload, suite.name);
    for (const auto& b : bs) add(b, spec.workload, spec.n, spec.dtype, nullptr, environments_of(suite, b, spec.workload));
  }
  return "";
}

// The environments every case runs in, by name ("" alone without any): one
// pass, innermost, so the same case in each is adjacent, in the order given.
std::vector<std::string> planned_environments(const Suite& suite, const Selection& sel) {
  std::vector<std::string> envs;
  for (const auto& e : sel.environments.empty() ? suite.environments : sel.environments) envs.push_back(e.name);
  if (envs.empty()) envs.push_back("");
  return envs;
}

// Why a case id cannot name the files made after it (limits::kMaxCaseIdBytes),
// checked before any process runs; "" when it can.
std::string id_too_long(const std::string& id, const std::string& workload) {
  if (id.size() <= limits::kMaxCaseIdBytes) return "";
  return fmt::format("the case id '{}...' is {} bytes, more than the {} the files named after it may hold: give the "
                     "workload '{}' (for `measure`, the function: --name) a shorter name",
                     id.substr(0, 40), id.size(), limits::kMaxCaseIdBytes, workload);
}
}  // namespace

std::variant<std::vector<Case>, std::string> make_plan(const Catalog& catalog, const Suite& suite,
                                                       const Selection& sel) {
  // --cache-policy overrides a block's own cache_policy, which overrides the suite's.
  const auto policies_for = [&](const MatrixBlock* blk) -> const std::vector<CachePolicy>& {
    if (!sel.cache_policies.empty()) return sel.cache_policies;
    return blk && !blk->cache_policies.empty() ? blk->cache_policies : suite.cache_policies;
  };
  const auto& precisions = sel.precisions.empty() ? suite.precisions : sel.precisions;
  const auto envs = planned_environments(suite, sel);
  // --env (and bisect's steps) replace the suite's environments: a block's own
  // list names the suite's, so it gives way too, and every block runs in them.
  const bool replaced = !sel.environments.empty();
  const auto wanted_backend = [&](const std::string& b) {
    return sel.backends.empty() || std::find(sel.backends.begin(), sel.backends.end(), b) != sel.backends.end();
  };
  std::vector<Case> out;
  std::map<std::string, std::pair<std::string, std::string>> seen;  // id -> (backend, workload)
  std::string collision;
  const auto add = [&](const std::string& b, const std::string& w, long n, const std::string& d,
                       const MatrixBlock* blk, const std::set<std::string>& only_envs) {
    for (const auto& prec : precisions)
      for (const auto policy : policies_for(blk))
        for (const auto& env : envs) {
          // A block that names its environments runs in those (selected ones) alone.
          if (!env.empty() && !replaced && !only_envs.empty() && !only_envs.count(env)) continue;
          Case c = make_case(catalog, b, w, n, d, policy, prec, env);
          if (collision.empty()) collision = id_too_long(c.id, w);
          const auto [it, fresh] = seen.emplace(c.id, std::pair{b, w});
          if (fresh) out.push_back(std::move(c));
          else if (it->second != std::pair{b, w} && collision.empty())
            // torch_compile + "gpu_matmul" and torch_compile_gpu + "matmul" would write one file
            collision = fmt::format("backend '{}' with workload '{}' and backend '{}' with workload '{}' would share "
                                    "the case id '{}': rename the workload",
                                    it->second.first, it->second.second, b, w, c.id);
        }
  };

  // Counted before anything is expanded: a plan past the limit never takes the memory it would need.
  if (const long double planned = planned_count(suite, sel, precisions.size() * envs.size(), policies_for, wanted_backend);
      planned > limits::kMaxCases)
    return fmt::format("the selection expands to {:.0Lf} cases, more than jitbench plans ({}): split the suite or "
                       "narrow --backends/--cases",
                       planned, limits::kMaxCases);

  if (sel.cases.empty()) {
    for (const auto& blk : suite.matrix)
      for (const auto& b : blk.backends)
        if (wanted_backend(b))
          for (const auto& w : blk.workloads)
            for (long n : blk.sizes)
              for (const auto& d : blk.dtypes)
                add(b, w, n, d, &blk, std::set<std::string>(blk.environments.begin(), blk.environments.end()));
  } else if (auto err = add_named_cases(suite, sel, add); !err.empty()) {
    return err;
  }
  if (!collision.empty()) return collision;
  if (out.empty()) return std::string("the selection matches no case: check --backends and --cases against `jitbench list`");
  return out;
}

}  // namespace jitbench
