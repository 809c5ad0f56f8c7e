#pragma once
// The environment a worker starts with: the parent's, less every compile-cache
// setting inherited from the user's shell, plus what jitbench sets. A
// persistent cache the user turned on for their own work (JAX_COMPILATION_CACHE_DIR,
// a cache flag inside XLA_FLAGS or TF_XLA_FLAGS, ...) would make a cold run
// load compiled programs from outside the case's own, emptied, directory: a
// warm result measured as a cold one. What was found is recorded in every case.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "results/model.h"

namespace jitbench {

struct WorkerSetup;

struct WorkerEnv {
  std::map<std::string, std::string> set;  // added to / overriding the inherited environment
  std::vector<std::string> unset;          // removed from it
  std::vector<InheritedSetting> found;     // the cache settings removed, as inherited
};

// The compile-cache settings in `inherited` (a variable's whole value, or single
// flags of XLA_FLAGS / TF_XLA_FLAGS) and the environment changes that remove
// them. Pure: tested without touching the process's environment.
WorkerEnv scrub_cache_settings(const std::map<std::string, std::string>& inherited);

// This process's environment, as a map.
std::map<std::string, std::string> inherited_environment();

// Everything jitbench does to the inherited environment for one case's workers.
WorkerEnv worker_env(const WorkerSetup& s, const Case& c, const std::filesystem::path& cache_dir,
                     const std::map<std::string, std::string>& inherited = inherited_environment());

// The whole environment a worker of case c starts with: `inherited` with
// worker_env's changes applied (the cache settings removed; --deterministic's
// thread counts, the case's environment's own variables set). What doctor's
// thread check and environment.json judge: the workers', not jitbench's own.
std::map<std::string, std::string> worker_environment(const WorkerSetup& s, const Case& c,
                                                      const std::map<std::string, std::string>& inherited =
                                                          inherited_environment());

}  // namespace jitbench
