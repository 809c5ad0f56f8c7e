#include "run/case_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "plan/shard.h"
#include "run/worker_env.h"
#include "util/test_dir.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

// A plan made from a catalog that holds a user workload ("carried_loop", a
// cost coefficient of 0.5), returned after that catalog is gone; `path` is
// the workload's file as the catalog recorded it.
std::vector<Case> plan_from_a_catalog_now_gone(std::string& path) {
  static const TestDir dir("case-runner-test");
  std::ofstream(dir.path() / "carried_loop.py") << "# a user workload\n";
  auto added = Catalog::builtin().with_user_workload((dir.path() / "carried_loop.py").string());
  const auto* err = std::get_if<std::string>(&added);
  EXPECT_EQ(err, nullptr) << *err;
  WorkloadInfo record;
  record.name = "carried_loop";
  record.summary = "counts";
  record.cost_coefficient = 0.5;
  const Catalog catalog = std::get<Catalog>(added).with_record(record);
  path = catalog.find_workload("carried_loop")->path;
  Suite suite;
  suite.matrix.push_back({{Catalog::builtin().backends().front()->name}, {"carried_loop"}, {8}, {"f64"}, {}, {}});
  auto plan = make_plan(catalog, suite, {});
  EXPECT_TRUE(std::holds_alternative<std::vector<Case>>(plan));
  return std::get<std::vector<Case>>(plan);
}

TEST(WorkerStart, ACaseStartsFromTheRecordsItCarriesNotACatalogLookup) {
  std::string path;
  const auto plan = plan_from_a_catalog_now_gone(path);
  ASSERT_EQ(plan.size(), 1u);
  // The built-in catalog does not know the workload: a lookup by name would find no file.
  ASSERT_EQ(Catalog::builtin().find_workload("carried_loop"), nullptr);
  WorkerSetup s;
  s.python = "/interp";
  const auto argv = worker_argv(s, plan[0], RunMode::Cold);
  const auto at = std::find(argv.begin(), argv.end(), "--workload-path");
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(*(at + 1), path);
  EXPECT_EQ(argv.front(), "/interp");
  // The planner's cost model reads the same carried record (0.5 s a call, whatever the size's exponent).
  const double work = plan[0].workload_info->cost_coefficient;
  EXPECT_EQ(work, 0.5);
  EXPECT_NEAR(modelled_cost_s(plan[0], 0, 1), 0.5 * 8 * plan[0].backend_info->cost_factor, 1e-12);
}

TEST(WorkerStart, TheWorkerKindIsTheCarriedBackendRecords) {
  // A backend no catalog knows by this name, whose record says: a native worker.
  Case c = make_case(Catalog::builtin().backends().front()->name, Catalog::builtin().workloads().front()->name, 8,
                     "f32");
  auto native = std::make_shared<BackendInfo>(*c.backend_info);
  native->name = c.backend = "carried_native";
  native->worker = WorkerKind::Native;
  c.backend_info = native;
  WorkerSetup s;
  s.python = "/interp";
  s.native_worker = "/bin/native-worker";
  s.native_blas = "/lib/blas.so";
  EXPECT_EQ(worker_argv(s, c, RunMode::Cold).front(), "/bin/native-worker");
  EXPECT_EQ(worker_env(s, c, "", {}).set.count("JITBENCH_NATIVE_BLAS"), 1u);
  // Without a record (a backend read back that no catalog knows): the Python worker, no BLAS.
  c.backend_info = nullptr;
  EXPECT_EQ(worker_argv(s, c, RunMode::Cold).front(), "/interp");
  EXPECT_EQ(worker_env(s, c, "", {}).set.count("JITBENCH_NATIVE_BLAS"), 0u);
}

TEST(WorkerStart, APythonWorkerIsHandedItsCasesSharedFileAndTheSha256OnceRecorded) {
  Case c = make_case(Catalog::builtin().backends().front()->name, Catalog::builtin().workloads().front()->name, 8,
                     "f32");
  WorkerSetup s;
  s.python = "/interp";
  CaseShared shared{"/out/references/x.pickle", ""};
  const auto has = [](const std::vector<std::string>& argv, const std::string& flag) {
    return std::find(argv.begin(), argv.end(), flag) != argv.end();
  };
  auto argv = worker_argv(s, c, RunMode::Cold, &shared);
  EXPECT_TRUE(has(argv, "--case-shared"));
  EXPECT_FALSE(has(argv, "--case-shared-sha256"));  // the case's first process writes it
  shared.sha256 = "ab";
  argv = worker_argv(s, c, RunMode::Warm, &shared);
  const auto at = std::find(argv.begin(), argv.end(), "--case-shared-sha256");
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(*(at + 1), "ab");
  // A native worker verifies on its own: never handed the file.
  auto native = std::make_shared<BackendInfo>(*c.backend_info);
  native->worker = WorkerKind::Native;
  c.backend_info = native;
  s.native_worker = "/bin/native-worker";
  EXPECT_FALSE(has(worker_argv(s, c, RunMode::Cold, &shared), "--case-shared"));
}

}  // namespace
}  // namespace jitbench
