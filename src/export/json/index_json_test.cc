// The index's typed sections and the registry's entries round-trip: struct ->
// export/*_json.cc -> file -> results/read.cc -> the same struct, and written
// again, the same bytes; an index of an earlier version reads as it did.
#include "export/json/index_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "export/json/bisect_json.h"
#include "export/json/json_util.h"
#include "export/json/publish_json.h"
#include "export/json/schema.h"
#include "results/read.h"
#include "util/fs.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// A file of its own for each test, removed after it.
struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name)
      : path(fs::temp_directory_path() / ("jitbench-index-json-test-" + std::to_string(::getpid()) + "-" + name)) {}
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

GitBuild a_build(const std::string& sha) { return {"v1-3-g" + sha.substr(0, 7), sha, "main", "file:///src", true}; }

// Every option a run records, each set to something other than its default.
RecordedOptions every_option() {
  RecordedOptions r;
  r.suite_file = "suites/s.toml", r.python = "/usr/bin/python3", r.costs_dir = "../costs", r.machine = "ci";
  r.deterministic = true;
  r.cold_runs = 3, r.warm_iters = 4, r.warm_runs = 2, r.min_runs = 5, r.max_runs = 9;
  r.timeout_s = 12.5, r.target_ci_pct = 2.5, r.max_time_s = 60;
  r.cases = {"matmul_64_f32"}, r.backends = {"numpy", "jax_jit_cpu"};
  r.cache_policies = {CachePolicy::WarmCache}, r.precisions = {Precision::Highest};
  r.workload_paths = {"/tmp/m/workloads/step.py"};
  r.kept_files = {{"/home/u/mine.py", "mine.py"}};
  r.ceilings = "off";
  r.shard = RecordedShard{2, 3};
  r.envs = {"np2:numpy==2.0"}, r.env_vars = {"np2:OMP_NUM_THREADS=1"}, r.find_links = {"wheels"};
  r.no_index = true, r.no_interleave = true, r.anatomy = true, r.count = true;
  r.affinity = {0, 2};
  r.anatomy_runs = 2, r.count_runs = 2, r.jobs = 4;  // --count-runs is 2 at least
  r.count_source = "valgrind";
  return r;
}

// Every section, every optional field of every section set.
IndexSections every_section() {
  IndexSections s;
  s.shard = ShardSection{2, 3, std::string(64, 'a'), {"numpy-sum-f64", "numba-sum-f64"}, "model (backend and size)"};
  s.inputs.cwd = "/home/u/bench";
  s.inputs.inputs = {{"suite", "/home/u/bench/suite.toml", "inputs/suite.toml", std::string(64, 'b')},
                     {"workload", "/home/u/w.py", "inputs/workloads/w.py", std::string(64, 'c')}};
  s.slurm = SlurmIds{{"SLURM_JOB_ID", "17"}, {"SLURM_ARRAY_TASK_ID", "2"}};
  s.jitbench_git = a_build(std::string(40, 'd'));
  s.machine = MachineLabel{"ci-runner"};
  RecordedEnvironment built{"np2", {"numpy==2.0"}, "3.11", {{"OMP_NUM_THREADS", "1"}}, "environments/env-np2.json",
                            true, "", {{"hash", "h1"}, {"packages", {{"numpy", "2.0"}}}}};
  RecordedEnvironment failed{"np1", {"numpy==1.0"}, "", {}, std::nullopt, false,
                             "environment_unavailable: no wheel", json::object()};
  s.environments = std::vector<RecordedEnvironment>{built, failed};
  Resumption plain{"", 3, {"a", "b"}, std::nullopt, std::nullopt};
  Resumption full{"2026-01-02T03:04:05Z", 0, {}, SlurmIds{{"SLURM_RESTART_COUNT", "1"}}, a_build(std::string(40, 'e'))};
  s.resumed = std::vector<Resumption>{plain, full};
  MergedShard one{"/runs/s1", "1/2", std::string(64, 'f'), 4, "environment.json", std::nullopt, std::nullopt};
  MergedShard two{"/runs/s2", "2/2", std::string(64, '0'), 0, "environments/env-2.json", SlurmIds{{"SLURM_JOB_ID", "9"}},
                  std::vector<Resumption>{plain}};
  s.merged = MergedSection{{one, two}, {"3/3"}, {"x-case"}, {"environment.json", "environments/env-2.json"}};
  s.options = every_option();
  return s;
}

RunHeader header_with(const IndexSections& s) {
  RunHeader h;
  h.info.suite_name = "default";
  h.argv = {"jitbench", "run"};
  h.sections = s;
  return h;
}

RunIndex written_and_read(const RunHeader& h, const std::string& name, std::string* text = nullptr) {
  TempFile f(name);
  const auto written = json_text(index_json(h, {}, false, "", {}));
  if (text) *text = written;
  write_file_atomic(f.path, written);
  auto r = read_index(f.path);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<RunIndex>(r);
}

IndexSections sections_of(const RunIndex& x) {
  IndexSections s;
  s.shard = x.shard;
  if (!x.cwd.empty()) s.inputs.cwd = x.cwd;
  s.inputs.inputs = x.inputs;
  s.slurm = x.slurm;
  s.jitbench_git = x.jitbench_git;
  s.machine = x.machine;
  s.environments = x.environments;
  s.resumed = x.resumed;
  s.merged = x.merged;
  s.options = x.options;
  return s;
}

TEST(IndexSections, EverySectionRoundTripsAndIsWrittenAgainByteForByte) {
  std::string first, second;
  const auto read = written_and_read(header_with(every_section()), "all", &first);
  EXPECT_EQ(sections_of(read), every_section());
  written_and_read(header_with(sections_of(read)), "again", &second);
  EXPECT_EQ(first, second);
  EXPECT_TRUE(validate_against(json::parse(first), kIndexSchema).empty());
}

TEST(IndexSections, WhatIsUnsetIsNotWritten) {
  const auto j = index_json(header_with({}), {}, true, "", {});
  for (const char* key : {"shard", "cwd", "inputs", "slurm", "jitbench_git", "machine", "environments", "resumed",
                          "merged", "stopped", "options"})
    EXPECT_FALSE(j.contains(key)) << key;
  const auto read = written_and_read(header_with({}), "none");
  EXPECT_EQ(sections_of(read), IndexSections{});
}

TEST(IndexSections, NullsAreWrittenWhereTheSchemaSaysSo) {
  const auto j = index_sections_json(every_section());
  EXPECT_TRUE(j["resumed"][0]["at"].is_null());  // deterministic
  EXPECT_FALSE(j["resumed"][0].contains("slurm"));
  EXPECT_FALSE(j["resumed"][0].contains("jitbench_git"));
  EXPECT_TRUE(j["environments"][0]["reason"].is_null());
  EXPECT_TRUE(j["environments"][1]["file"].is_null());
  EXPECT_EQ(j["merged"]["shards"][1]["resumed"].size(), 1u);
  EXPECT_FALSE(j["merged"]["shards"][0].contains("slurm"));
}

// An index v1, before cwd, inputs, jitbench_git and the Slurm ids: read as it was.
// Options left unset (no fixed counts, no shard) are written as null and read back unset.
TEST(IndexSections, OptionsLeftUnsetRoundTripAsNulls) {
  IndexSections s;
  s.options = RecordedOptions{};
  std::string text;
  const auto read = written_and_read(header_with(s), "options", &text);
  EXPECT_EQ(read.options, s.options);
  const auto j = json::parse(text);
  EXPECT_TRUE(j["options"]["cold_runs"].is_null());
  EXPECT_TRUE(j["options"]["shard"].is_null());
  EXPECT_EQ(j["options"]["ceilings"], "auto");
  EXPECT_TRUE(validate_against(j, kIndexSchema).empty());
}

TEST(IndexSections, AnEarlierIndexReadsAsItWas) {
  TempFile f("v1");
  write_file_atomic(f.path, R"v1({"schema_version": "jitbench.index.v1", "jitbench_version": "0.1.0",
    "suite": {"name": "default", "source": "built-in"}, "command": ["jitbench", "run"], "complete": true,
    "started_at": null, "finished_at": null, "environment": "environment.json", "cases": [], "files": [],
    "summary": {"n_planned": 0, "n_cases": 0, "n_ok": 0, "n_warn": 0, "n_failed": 0},
    "shard": {"index": 1, "count": 2, "plan_digest": "ab", "plan": ["c1", "c2"], "costs": "model (backend and size)"},
    "resumed": [{"at": "2025-01-01T00:00:00Z", "kept": 1, "remeasured": ["c1"]}],
    "stopped": {"reason": "interrupted", "detail": "signal 2"}})v1");
  auto r = read_index(f.path);
  ASSERT_TRUE(std::holds_alternative<RunIndex>(r)) << std::get<std::string>(r);
  const auto& x = std::get<RunIndex>(r);
  EXPECT_EQ(x.cwd, "");
  EXPECT_TRUE(x.inputs.empty());
  EXPECT_FALSE(x.jitbench_git);
  EXPECT_FALSE(x.machine);
  EXPECT_FALSE(x.slurm);
  EXPECT_FALSE(x.merged);
  EXPECT_FALSE(x.environments);
  ASSERT_TRUE(x.shard);
  EXPECT_EQ(x.shard->plan, (std::vector<std::string>{"c1", "c2"}));
  ASSERT_TRUE(x.resumed);
  EXPECT_EQ((*x.resumed)[0], (Resumption{"2025-01-01T00:00:00Z", 1, {"c1"}, std::nullopt, std::nullopt}));
  ASSERT_TRUE(x.stopped);
  EXPECT_EQ(*x.stopped, (Stopped{"interrupted", "signal 2"}));
}

RegistryEntry an_entry(const std::string& id, bool signed_by_someone) {
  RegistryEntry e;
  e.id = id;
  e.published_at = "2026-01-01T00:00:00Z";
  e.path = "snapshots/" + id;
  e.suite = "default";
  e.started_at = "2025-12-31T23:00:00Z";  // finished_at left "": written null
  e.command = {"jitbench", "run", "--machine", "ci"};
  e.jitbench_version = "0.9.0";
  e.jitbench_git = a_build(std::string(40, '1'));
  e.machine = "ci";
  e.machine_label = signed_by_someone ? "ci" : "";
  e.cpu_model = "Some CPU";
  e.logical_cores = "8";
  e.memory_gib = 15.5;
  e.gpus = {"H100"};
  e.environment_digest = std::string(64, '2');
  e.python_version = "3.11.9";
  e.index_sha256 = std::string(64, '3');
  e.snapshot_index_sha256 = std::string(64, '4');
  e.n_cases = 3;
  e.n_ok = 1;
  e.n_warn = 1;
  e.n_failed = 1;
  if (signed_by_someone) e.signature = SnapshotSignature{"run/index.json.sig", "SHA256:k", "someone@example.org"};
  return e;
}

TEST(RegistryEntries, RoundTripAndAreWrittenAgainByteForByte) {
  const std::vector<RegistryEntry> entries{an_entry("a", true), an_entry("b", false)};
  auto unchecked = an_entry("c", true);
  unchecked.signature->principal.reset();  // no allowed-signers file given
  const std::vector<RegistryEntry> all{entries[0], entries[1], unchecked};
  const auto text = json_text(registry_json(all, "2026-01-02T00:00:00Z"));
  EXPECT_TRUE(validate_against(json::parse(text), kRegistrySchema).empty());
  TempFile f("registry");
  write_file_atomic(f.path, text);
  auto r = read_registry(f.path);
  ASSERT_TRUE(std::holds_alternative<std::vector<RegistryEntry>>(r)) << std::get<std::string>(r);
  const auto& read = std::get<std::vector<RegistryEntry>>(r);
  EXPECT_EQ(read, all);
  EXPECT_EQ(json_text(registry_json(read, "2026-01-02T00:00:00Z")), text);
  const auto j = json::parse(text);
  EXPECT_TRUE(j["snapshots"][1]["signature"].is_null());
  EXPECT_TRUE(j["snapshots"][1]["machine"]["label"].is_null());
  EXPECT_TRUE(j["snapshots"][2]["signature"]["principal"].is_null());
  EXPECT_TRUE(j["snapshots"][0]["run"]["finished_at"].is_null());
}

BisectEvidence a_row(const std::string& id, bool worse) {
  return {id, worse ? 2.0 : 1.0, 1.0, worse ? 2.0 : 1.0, 0.9, worse ? 2.2 : 1.05, worse ? 0.001 : 0.5, true, worse,
          worse ? "regression" : "clear"};
}

BisectDocument a_bisection(BisectResult result) {
  BisectDocument d{"numpy", "1.0", "2.0", "ttfr", {}, {"1.0", "1.5", "2.0"}, 10, 0.05, {}, std::move(result), std::nullopt};
  d.steps.push_back({"1.0", "good", "steps/numpy-1.0-1", 0, "measured", {{"numpy-sum-f64", "ok", "", "quiet", 0.1}},
                     std::nullopt, "", ""});
  d.steps.push_back({"2.0", "bad", "steps/numpy-2.0-1", 2, "bad", {{"numpy-sum-f64", "warn", "noisy", "", std::nullopt}},
                     std::vector<BisectEvidence>{a_row("numpy-sum-f64", true)}, "", ""});
  return d;
}

// Each way a bisection ends, written as jitbench.bisect.v5 has it.
TEST(BisectRecords, EveryEndIsWrittenAsTheSchemaHasIt) {
  BisectResult unmeasurable;
  unmeasurable.status = "unmeasurable";
  unmeasurable.unmeasurable = "2.0";
  BisectResult inconclusive;
  inconclusive.status = "inconclusive";
  inconclusive.evidence = std::vector<BisectEvidence>{a_row("c", false)};
  inconclusive.more_runs_needed = 12;
  BisectResult found;
  found.status = "found";
  found.first_bad = "1.5";
  found.last_good = "1.0";
  found.searched = true;
  found.skipped = {"1.2"};
  found.confirmation = std::vector<BisectEvidence>{a_row("c", true)};
  for (const auto& r : {unmeasurable, inconclusive, found}) {
    const auto j = bisect_document_json(a_bisection(r), "2026-01-01T00:00:00Z");
    EXPECT_TRUE(validate_against(j, kBisectSchema).empty()) << r.status << ": " << j.dump();
  }
  // A step's case carries its interference grade where one was recorded; older steps' cases have none.
  const auto steps = bisect_document_json(a_bisection(found), "t")["steps"];
  EXPECT_EQ(steps[0]["cases"][0]["grade"], "quiet");
  EXPECT_EQ(steps[0]["cases"][0]["others_cpus_median"], 0.1);
  EXPECT_FALSE(steps[1]["cases"][0].contains("grade"));
  const auto u = bisect_document_json(a_bisection(unmeasurable), "t")["result"];
  EXPECT_EQ(u, json::parse(R"({"status": "unmeasurable", "first_bad": null, "last_good": null, "unmeasurable": "2.0"})"));
  const auto i = bisect_document_json(a_bisection(inconclusive), "t")["result"];
  EXPECT_EQ(i["more_runs_needed"], 12);
  EXPECT_FALSE(i.contains("skipped"));
  const auto f = bisect_document_json(a_bisection(found), "t");
  EXPECT_EQ(f["result"]["overturned"], json::array());
  EXPECT_FALSE(f["result"].contains("skipped_between"));
  EXPECT_EQ(f["result"]["confirmation"][0]["ratio_ci95"], json::parse("[0.9, 2.2]"));
  EXPECT_FALSE(f["steps"][0].contains("against_good"));
  EXPECT_TRUE(f["steps"][0]["cases"][0]["reason"].is_null());
  EXPECT_EQ(f["steps"][1]["cases"][0]["reason"], "noisy");
  EXPECT_EQ(f["steps"][1]["against_good"][0]["decision"], "regression");
  EXPECT_FALSE(f.contains("git"));
  EXPECT_FALSE(f["steps"][0].contains("commit"));
}

// bisect --anatomy: the sub-phases that moved at the boundary (v4's optional
// result.boundary_anatomy); a one-sided item has no ratio, few processes no CI.
TEST(BisectRecords, TheBoundarysAnatomyIsWrittenAsTheSchemaHasIt) {
  BisectResult found;
  found.status = "found";
  found.first_bad = "1.5";
  found.last_good = "1.0";
  found.searched = true;
  SubPhaseDelta moved{{"compile", "backend"}, 0.5, 1.2, 0.7, 3, 3, 0.49, 0.51, 1.1, 1.3, 2.4, 2.1, 2.7};
  moved.thread = "tf_xla-cpu-codegen";  // another thread's item: optional in v4
  SubPhaseDelta added{{"compile", "ynn_fusion"}, std::nullopt, 0.1, 0.1, 2, 2, 0, 0, 0.09, 0.11, std::nullopt,
                      std::nullopt, std::nullopt};
  found.confirmation = std::vector<BisectEvidence>{a_row("numpy-sum-f64", true)};
  found.boundary_anatomy = std::vector<BisectAnatomy>{{"numpy-sum-f64", {moved, added}}};
  const auto j = bisect_document_json(a_bisection(found), "t");
  EXPECT_EQ(validate_against(j, kBisectSchema), std::vector<std::string>{}) << j.dump();
  const auto& items = j["result"]["boundary_anatomy"][0]["items"];
  EXPECT_EQ(items[0]["ratio_ci95"], json::parse("[2.1, 2.7]"));
  EXPECT_TRUE(items[1]["base_median_s"].is_null());
  EXPECT_TRUE(items[1]["ratio"].is_null());
  EXPECT_TRUE(items[1]["ratio_ci95"].is_null());
  EXPECT_EQ(items[0]["thread"], "tf_xla-cpu-codegen");
  EXPECT_FALSE(items[1].contains("thread"));  // the dispatching thread's
  auto broken = j;
  broken["result"]["boundary_anatomy"][0]["items"][0]["ratio_ci95"] = json::parse("[2.1]");
  EXPECT_FALSE(validate_against(broken, kBisectSchema).empty());
  // Without --anatomy the key is absent.
  found.boundary_anatomy.reset();
  EXPECT_FALSE(bisect_document_json(a_bisection(found), "t")["result"].contains("boundary_anatomy"));
}

// bisect --git: the repository and revisions as given, each step's commit and subject (v3's optional fields).
TEST(BisectRecords, ACommitBisectionRecordsTheRepositoryAndEachStepsCommit) {
  const std::string a(40, 'a'), b(40, 'b');
  BisectResult found;
  found.status = "no_regression";
  BisectDocument d{"toypkg", a, b, "ttfr", {}, {a, b}, 10, 0.05, {}, found, std::nullopt};
  d.steps.push_back({a, "good", "steps/x-1", 0, "measured", {}, std::nullopt, a, "add toypkg"});
  d.steps.push_back({b, "bad", "steps/x-1", 0, "good", {}, std::nullopt, b, "tidy"});
  d.git = BisectGit{"/src/toypkg", "HEAD~1", "HEAD"};
  const auto j = bisect_document_json(d, "t");
  EXPECT_TRUE(validate_against(j, kBisectSchema).empty()) << j.dump();
  EXPECT_EQ(j["git"], json::parse(R"({"repository": "/src/toypkg", "good": "HEAD~1", "bad": "HEAD",
                                      "first_parent": true})"));
  EXPECT_EQ(j["steps"][0]["commit"], a);
  EXPECT_EQ(j["steps"][1]["subject"], "tidy");
  auto broken = j;
  broken["steps"][0]["commit"] = "HEAD";  // a step's commit is a full id, never a revision's name
  EXPECT_FALSE(validate_against(broken, kBisectSchema).empty());
}

}  // namespace
}  // namespace jitbench
