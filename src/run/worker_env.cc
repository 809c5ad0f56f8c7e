#include "run/worker_env.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "run/case_runner.h"

extern char** environ;

namespace jitbench {
namespace fs = std::filesystem;

namespace {
bool contains_cache(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s.find("cache") != std::string::npos;
}
bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A variable whose whole value is a cache location or a cache switch.
bool is_cache_variable(const std::string& name) {
  if (name == "JAX_EXPLAIN_CACHE_MISSES") return false;  // logging only
  for (const char* prefix : {"JAX_", "NUMBA_", "TORCHINDUCTOR_", "TORCH_", "TRITON_"})
    if (starts_with(name, prefix) && contains_cache(name)) return true;
  // Triton's cache lives under $TRITON_HOME; TRITON_ALWAYS_COMPILE ignores its hits.
  return name == "TRITON_HOME" || name == "TRITON_ALWAYS_COMPILE";
}

// Variables holding a list of flags, of which only the cache flags go.
constexpr const char* kFlagLists[] = {"XLA_FLAGS", "TF_XLA_FLAGS"};

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}
std::string flag_name(const std::string& flag) { return flag.substr(0, flag.find('=')); }
std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : " ") + x;
  return out;
}
}  // namespace

WorkerEnv scrub_cache_settings(const std::map<std::string, std::string>& inherited) {
  WorkerEnv e;
  for (const auto& [name, value] : inherited) {
    if (is_cache_variable(name)) {
      e.unset.push_back(name);
      e.found.push_back({name, value, "removed"});
      continue;
    }
    if (std::find(std::begin(kFlagLists), std::end(kFlagLists), name) == std::end(kFlagLists)) continue;
    std::vector<std::string> kept, removed;
    for (const auto& flag : words(value)) (contains_cache(flag_name(flag)) ? removed : kept).push_back(flag);
    if (removed.empty()) continue;
    e.found.push_back({name, value, "removed the flag(s) " + join(removed)});
    if (kept.empty()) e.unset.push_back(name);
    else e.set[name] = join(kept);
  }
  return e;
}

std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

WorkerEnv worker_env(const WorkerSetup& s, const Case& c, const fs::path& cache_dir,
                     const std::map<std::string, std::string>& inherited) {
  WorkerEnv e = scrub_cache_settings(inherited);
  auto& env = e.set;
  std::string pythonpath = s.worker_dir.string();
  if (auto old = inherited.find("PYTHONPATH"); old != inherited.end() && !old->second.empty())
    pythonpath += ":" + old->second;
  env["PYTHONPATH"] = pythonpath;
  env["PYTHONUNBUFFERED"] = "1";
  env["JITBENCH_CACHE_POLICY"] = std::string(to_string(c.cache_policy));
  if (!s.native_blas.empty() && c.worker() == WorkerKind::Native)
    env["JITBENCH_NATIVE_BLAS"] = s.native_blas;
  if (!cache_dir.empty()) env["JITBENCH_CACHE_DIR"] = fs::absolute(cache_dir).string();
  // In a pinned environment the directory jitbench was started in must not come first on the
  // worker's sys.path (`python -m` puts it there): from inside a checkout of the package measured
  // (`bisect --git .`, `run --env` from its clone) the worker would import the files on disk, not the
  // release or commit the environment holds. Set before the environment's own variables, which may undo it.
  if (!c.env.empty()) env["PYTHONSAFEPATH"] = "1";
  // The case's environment's own variables: deliberate, so kept whatever they
  // set (a cache flag too), after the scrub, and recorded in worker_env.
  if (auto it = s.environments.find(c.env); !c.env.empty() && it != s.environments.end())
    for (const auto& [k, v] : it->second.variables) {
      env[k] = v;
      e.unset.erase(std::remove(e.unset.begin(), e.unset.end(), k), e.unset.end());
    }
  if (s.deterministic) {
    // Single-threaded math and a fixed hash seed: results become bit-reproducible
    // from run to run (timings of course do not).
    env["PYTHONHASHSEED"] = "0";
    for (const char* k : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"})
      env[k] = "1";
    // After the user's own XLA flags (cache flags removed): XLA takes the last of a repeated flag.
    std::string xla = env.count("XLA_FLAGS") ? env["XLA_FLAGS"] : "";
    if (xla.empty() && inherited.count("XLA_FLAGS") &&
        std::find(e.unset.begin(), e.unset.end(), "XLA_FLAGS") == e.unset.end())
      xla = inherited.at("XLA_FLAGS");
    xla += (xla.empty() ? "" : " ") + std::string("--xla_cpu_multi_thread_eigen=false --xla_force_host_platform_device_count=1");
    env["XLA_FLAGS"] = xla;
    e.unset.erase(std::remove(e.unset.begin(), e.unset.end(), "XLA_FLAGS"), e.unset.end());
    env["TF_DETERMINISTIC_OPS"] = "1";
  }
  return e;
}

std::map<std::string, std::string> worker_environment(const WorkerSetup& s, const Case& c,
                                                      const std::map<std::string, std::string>& inherited) {
  const WorkerEnv e = worker_env(s, c, "", inherited);
  std::map<std::string, std::string> env = inherited;
  for (const auto& k : e.unset) env.erase(k);
  for (const auto& [k, v] : e.set) env[k] = v;
  return env;
}

}  // namespace jitbench
