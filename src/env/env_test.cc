// What env/ decides from a helper process's answer: the probe's body or why
// there is none, the ceilings or why they were not measured (an implausible
// figure is not believed), an environment built or unavailable, and where the
// environment cache lies. A scripted launcher stands in for the processes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "env/ceilings.h"
#include "env/environments.h"
#include "env/probe.h"
#include "run/subprocess.h"

namespace jitbench {
namespace {

struct ScriptedLauncher final : ProcessLauncher {
  ProcessResult answer;
  std::vector<SpawnSpec> asked;
  ProcessResult launch(const SpawnSpec& spec) override {
    asked.push_back(spec);
    return answer;
  }
};

ProcessResult exited(int code, std::vector<std::string> lines) {
  ProcessResult r;
  r.kind = ExitKind::Exited;
  r.exit_code = code;
  r.lines = std::move(lines);
  return r;
}

TEST(ProbeWorker, ReturnsTheProbeBodyAndSaysWhyWhenThereIsNone) {
  ScriptedLauncher l;
  l.answer = exited(0, {R"({"type":"hello","protocol":1,"monotonic_ns":1})",
                        R"({"type":"probe","backends":{"numpy":{"ok":true}}})"});
  ProbeRequest req;
  req.python = "/py";
  req.worker_dir = "/w";
  req.log_path = "/tmp/probe.log";
  req.check_devices = true;
  auto got = probe_worker(l, req);
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(got));
  EXPECT_TRUE(std::get<nlohmann::json>(got)["backends"]["numpy"]["ok"].get<bool>());
  ASSERT_EQ(l.asked.size(), 1u);
  EXPECT_EQ(l.asked[0].argv.back(), "--check-devices");
  EXPECT_EQ(l.asked[0].env_set.at("PYTHONPATH"), "/w");

  l.answer = exited(1, {R"({"type":"probe","backends":[]})"});  // malformed: backends must be an object
  got = probe_worker(l, req);
  ASSERT_TRUE(std::holds_alternative<std::string>(got));
  EXPECT_NE(std::get<std::string>(got).find("gave no answer (exited, exit code 1; see /tmp/probe.log)"),
            std::string::npos)
      << std::get<std::string>(got);

  l.answer = ProcessResult{};
  l.answer.spawn_error = "No such file or directory";
  got = probe_worker(l, req);
  ASSERT_TRUE(std::holds_alternative<std::string>(got));
  EXPECT_NE(std::get<std::string>(got).find("cannot start Python '/py'"), std::string::npos);
  EXPECT_NE(std::get<std::string>(got).find("--python PATH"), std::string::npos);
}

CeilingsRequest ceilings_request() {
  CeilingsRequest req;
  req.worker = "/bin/true";  // executable: the launcher is scripted, nothing is run
  req.log_path = "/tmp/ceilings.log";
  return req;
}

TEST(MeasureCeilings, AnUnbuiltWorkerIsNotMeasuredAndNothingStarts) {
  ScriptedLauncher l;
  auto req = ceilings_request();
  req.worker = "/nonexistent/jitbench-native-worker";
  const auto c = measure_ceilings(l, req);
  EXPECT_FALSE(c["measured"].get<bool>());
  EXPECT_EQ(c["reason"], "/nonexistent/jitbench-native-worker is not built");
  EXPECT_TRUE(l.asked.empty());
}

TEST(MeasureCeilings, APlausibleAnswerIsKeptAnImplausibleOneIsNotBelieved) {
  ScriptedLauncher l;
  l.answer = exited(0, {R"({"type":"ceilings","ceilings":{"measured":true,"gemm_gflops":120.5,"copy_gbps":20}})"});
  auto c = measure_ceilings(l, ceilings_request());
  EXPECT_TRUE(c["measured"].get<bool>());
  EXPECT_EQ(c["gemm_gflops"], 120.5);

  l.answer = exited(0, {R"({"type":"ceilings","ceilings":{"measured":true,"gemm_gflops":5e-324}})"});
  c = measure_ceilings(l, ceilings_request());
  EXPECT_FALSE(c["measured"].get<bool>());
  EXPECT_NE(c["reason"].get<std::string>().find("not believed: gemm_gflops"), std::string::npos) << c.dump();
}

TEST(MeasureCeilings, AnAnswerFromAWorkerThatThenFailedIsNotKept) {
  ScriptedLauncher l;
  l.answer = exited(3, {R"({"type":"ceilings","ceilings":{"measured":true,"gemm_gflops":100}})"});
  const auto c = measure_ceilings(l, ceilings_request());
  EXPECT_FALSE(c["measured"].get<bool>());
  EXPECT_NE(c["reason"].get<std::string>().find("gave no answer (exited, exit code 3"), std::string::npos);
}

EnvironmentBuild build_with(ScriptedLauncher& l) {
  EnvironmentSpec spec;
  spec.name = "np2";
  spec.requirements = {"numpy==2.1.0"};
  spec.variables = {{"OMP_NUM_THREADS", "1"}};
  EnvironmentRequest req;
  req.bootstrap_python = "/py";
  req.worker_dir = "/w";
  req.cache_root = "/c";
  req.log_path = "/tmp/env.log";
  return build_environment(l, spec, req);
}

TEST(BuildEnvironment, TheBuildersAnswerDecidesWhetherTheEnvironmentIsUsable) {
  ScriptedLauncher l;
  l.answer = exited(0, {R"({"type":"environment","name":"np2","python":"/c/ab/bin/python","hash":"ab"})"});
  auto b = build_with(l);
  EXPECT_TRUE(b.ok);
  EXPECT_EQ(b.python, "/c/ab/bin/python");
  EXPECT_EQ(b.variables.at("OMP_NUM_THREADS"), "1");
  EXPECT_FALSE(b.record.contains("type"));
  EXPECT_EQ(b.record["hash"], "ab");

  l.answer = exited(0, {R"({"type":"environment","name":"np2","python":""})"});
  b = build_with(l);
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.reason, "environment_unavailable: the builder named no interpreter");

  l.answer = exited(0, {R"({"type":"skip","status":"warn","reason":"environment_unavailable: no wheel for numpy"})"});
  b = build_with(l);
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.reason, "environment_unavailable: no wheel for numpy");

  l.answer = exited(1, {R"({"type":"error","reason":"worker_error","message":"uv crashed"})"});
  b = build_with(l);
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.reason, "environment_unavailable: uv crashed");

  l.answer = exited(137, {});
  b = build_with(l);
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.reason.find("gave no answer (exited, exit code 137; see /tmp/env.log)"), std::string::npos) << b.reason;
}

// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedVar {
 public:
  ScopedVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedVar() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string cache_root_text() {
  const auto r = environment_cache_root();
  if (const auto* p = std::get_if<std::filesystem::path>(&r)) return p->string();
  return "error: " + std::get<std::string>(r);
}

TEST(EnvironmentCacheRoot, TheVariableThenXdgThenHomeAndNeverASharedPlace) {
  ScopedVar a("JITBENCH_ENV_CACHE", "/srv/envs/../envs2"), b("XDG_CACHE_HOME", "/x"), c("HOME", "/home/u");
  EXPECT_EQ(cache_root_text(), "/srv/envs2");
  {
    ScopedVar none("JITBENCH_ENV_CACHE", std::nullopt);
    EXPECT_EQ(cache_root_text(), "/x/jitbench/envs");
    ScopedVar no_xdg("XDG_CACHE_HOME", "");
    EXPECT_EQ(cache_root_text(), "/home/u/.cache/jitbench/envs");
    ScopedVar no_home("HOME", std::nullopt);
    EXPECT_NE(cache_root_text().find("error: no place for the environment cache"), std::string::npos);
  }
}

}  // namespace
}  // namespace jitbench
