#include "run/worker_env.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "run/case_runner.h"

namespace jitbench {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(ScrubCacheSettings, CacheVariablesAreRemovedAndRecorded) {
  const auto e = scrub_cache_settings({{"JAX_COMPILATION_CACHE_DIR", "/home/u/jaxcache"},
                                       {"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0"},
                                       {"NUMBA_CACHE_DIR", "/tmp/nb"},
                                       {"TORCHINDUCTOR_CACHE_DIR", "/tmp/ind"},
                                       {"TRITON_CACHE_DIR", "/tmp/tr"},
                                       {"JAX_EXPLAIN_CACHE_MISSES", "1"},  // logging, kept
                                       {"JAX_PLATFORMS", "cpu"},           // not a cache setting, kept
                                       {"HOME", "/home/u"}});
  for (const char* k : {"JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "NUMBA_CACHE_DIR",
                        "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"})
    EXPECT_TRUE(has(e.unset, k)) << k;
  EXPECT_FALSE(has(e.unset, "JAX_EXPLAIN_CACHE_MISSES"));
  EXPECT_FALSE(has(e.unset, "JAX_PLATFORMS"));
  ASSERT_EQ(e.found.size(), 5u);
  const InheritedSetting jax{"JAX_COMPILATION_CACHE_DIR", "/home/u/jaxcache", "removed"};
  EXPECT_NE(std::find(e.found.begin(), e.found.end(), jax), e.found.end());
}

TEST(ScrubCacheSettings, OnlyTheCacheFlagsOfAFlagListGo) {
  const auto e = scrub_cache_settings(
      {{"TF_XLA_FLAGS", "--tf_xla_persistent_cache_directory=/home/u/tf --tf_xla_auto_jit=2"},
       {"XLA_FLAGS", "--xla_gpu_per_fusion_autotune_cache_dir=/x"},
       {"XLA_FLAGS_UNRELATED", "--xla_gpu_per_fusion_autotune_cache_dir=/x"}});
  EXPECT_EQ(e.set.at("TF_XLA_FLAGS"), "--tf_xla_auto_jit=2");  // the user's other flag stays
  EXPECT_TRUE(has(e.unset, "XLA_FLAGS"));                      // nothing left of it
  EXPECT_EQ(e.found.size(), 2u);
  EXPECT_EQ(e.found[0].action, "removed the flag(s) --tf_xla_persistent_cache_directory=/home/u/tf");
  EXPECT_FALSE(e.set.count("XLA_FLAGS_UNRELATED"));
}

TEST(ScrubCacheSettings, NothingToDoIsNothingRecorded) {
  const auto e = scrub_cache_settings({{"XLA_FLAGS", "--xla_cpu_use_thunk_runtime=false"}, {"PATH", "/usr/bin"}});
  EXPECT_TRUE(e.found.empty());
  EXPECT_TRUE(e.unset.empty());
  EXPECT_TRUE(e.set.empty());
}

TEST(WorkerEnv, DeterministicFlagsFollowTheUsersOwn) {
  WorkerSetup s;
  s.deterministic = true;
  s.worker_dir = "/w";
  const auto c = make_case("numpy", "matmul", 8, "f32");
  const auto e = worker_env(s, c, "", {{"XLA_FLAGS", "--xla_cpu_use_thunk_runtime=false --xla_gpu_kernel_cache_file=/k"}});
  EXPECT_EQ(e.set.at("XLA_FLAGS"),
            "--xla_cpu_use_thunk_runtime=false --xla_cpu_multi_thread_eigen=false "
            "--xla_force_host_platform_device_count=1");
  EXPECT_FALSE(has(e.unset, "XLA_FLAGS"));
  EXPECT_EQ(e.set.at("PYTHONPATH"), "/w");
}

TEST(WorkerEnv, TheThreadSettingsAreTheWorkersNotJitbenchs) {
  WorkerSetup s;
  s.worker_dir = "/w";
  s.environments["pinned"] = EnvironmentRun{true, "", "/env/bin/python", {{"OMP_NUM_THREADS", "8"}}, "f"};
  const std::map<std::string, std::string> mine = {{"OMP_NUM_THREADS", "64"}, {"HOME", "/h"}};
  auto c = make_case("numpy", "matmul", 8, "f32");
  EXPECT_EQ(worker_environment(s, c, mine).at("OMP_NUM_THREADS"), "64");  // inherited as it is
  c.env = "pinned";  // --env-var pinned:OMP_NUM_THREADS=8, or a suite environment's variables
  EXPECT_EQ(worker_environment(s, c, mine).at("OMP_NUM_THREADS"), "8");
  s.deterministic = true;  // one thread, whatever jitbench was started with
  c.env.clear();
  const auto det = worker_environment(s, c, mine);
  EXPECT_EQ(det.at("OMP_NUM_THREADS"), "1");
  EXPECT_EQ(det.at("HOME"), "/h");
  EXPECT_FALSE(worker_environment(s, c, {{"JAX_COMPILATION_CACHE_DIR", "/c"}}).count("JAX_COMPILATION_CACHE_DIR"));
}

// From inside a checkout of the package an environment pins, `python -m` would
// import the checkout (the start directory first on sys.path): a pinned
// environment's worker starts with PYTHONSAFEPATH, the current interpreter's as it was.
TEST(WorkerEnv, APinnedEnvironmentsWorkerDoesNotImportTheStartDirectory) {
  WorkerSetup s;
  s.worker_dir = "/w";
  s.environments["v1"] = EnvironmentRun{true, "", "/env/bin/python", {}, "f"};
  auto c = make_case("numpy", "matmul", 8, "f32");
  EXPECT_FALSE(worker_env(s, c, "", {}).set.count("PYTHONSAFEPATH"));
  c.env = "v1";
  EXPECT_EQ(worker_env(s, c, "", {}).set.at("PYTHONSAFEPATH"), "1");
}

}  // namespace
}  // namespace jitbench
