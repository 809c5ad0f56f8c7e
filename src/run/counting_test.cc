#include "run/counting.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/test_dir.h"

namespace jitbench {
namespace {
using nlohmann::json;

// A callgrind dump's header as callgrind 3.19 writes it (--dump-instr=no --dump-line=no), cost lines after it.
std::string dump(int part, const std::string& trigger, long long ir) {
  return "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 4242\ncmd:  python -m jitbench_worker\n"
         "part: " + std::to_string(part) + "\n\n\ndesc: I1 cache: \ndesc: D1 cache: \ndesc: LL cache: \n\n"
         "desc: Timerange: Basic block 0 - 18779226\ndesc: Trigger: " + trigger + "\n\npositions: line\n"
         "events: Ir\nsummary: " + std::to_string(ir) + "\n\n\nob=(6) /usr/lib/libpython3.11.so\nfl=(1) ???\n"
         "fn=(1) main\n0 1234\n\ntotals: " + std::to_string(ir) + "\n";
}

TEST(Callgrind, TheHeaderGivesThePartTheTriggerAndTheInstructions) {
  const auto d = parse_callgrind_header(dump(3, "Client Request: first_call.compile", 1570123456));
  ASSERT_TRUE(std::holds_alternative<CallgrindDump>(d));
  const auto& x = std::get<CallgrindDump>(d);
  EXPECT_EQ(x.part, 3);
  EXPECT_EQ(x.trigger, "first_call.compile");
  EXPECT_EQ(x.instructions, 1570123456.0);
  EXPECT_EQ(std::get<CallgrindDump>(parse_callgrind_header(dump(7, "Program termination", 5))).trigger,
            "Program termination");
}

TEST(Callgrind, WhatIsNotACompleteDumpOfInstructionsIsNamed) {
  const auto not_one = parse_callgrind_header("events: Ir\nsummary: 12\n");
  ASSERT_TRUE(std::holds_alternative<std::string>(not_one));
  EXPECT_EQ(std::get<std::string>(not_one), "not a callgrind dump");
  auto cut = dump(1, "Client Request: import", 10);
  cut = cut.substr(0, cut.find("summary:"));
  EXPECT_EQ(std::get<std::string>(parse_callgrind_header(cut)), "no summary line (the dump was cut short)");
  auto cycles = dump(1, "Client Request: import", 10);
  cycles.replace(cycles.find("events: Ir"), 10, "events: Dr");
  EXPECT_NE(std::get<std::string>(parse_callgrind_header(cycles)).find("not Ir"), std::string::npos);
  auto junk = dump(1, "Client Request: import", 10);
  junk.replace(junk.find("summary: 10"), 11, "summary: 1x");
  EXPECT_TRUE(std::holds_alternative<std::string>(parse_callgrind_header(junk)));
}

const std::vector<std::string> kMarks = {"harness_start", "import", "setup", "first_call.trace", "first_call.compile",
                                         "second_call", "warm_calls"};

void write_dumps(const std::filesystem::path& dir, const std::vector<std::string>& triggers) {
  int part = 0;
  for (const auto& t : triggers) {
    ++part;
    std::ofstream(dir / ("callgrind.out.4242." + std::to_string(part))) << dump(part, "Client Request: " + t, 1000 * part);
  }
  std::ofstream(dir / "callgrind.out.4242") << dump(part + 1, "Program termination", 99);
}

RunRecord counted_run(const std::string& source, std::vector<std::string> marks, int calls = kCountCalls) {
  RunRecord r;
  r.mode = RunMode::Count;
  r.status = Status::Ok;
  r.worker.raw = {{"count", {{"source", source}, {"marks", marks}, {"warm_calls", calls},
                             {"first_call_split", "jax.jit's ahead-of-time stages"}}}};
  return r;
}

CountingSetup setup_of(const std::string& source) {
  CountingSetup s;
  s.enabled = true;
  s.source = source;
  return s;
}

TEST(AttachCounts, CallgrindsDumpsBecomeTheSegmentsTheWorkerMarked) {
  TestDir dir("counting-dumps");
  write_dumps(dir.path(), kMarks);
  auto r = counted_run("valgrind", kMarks);
  attach_counts(r, setup_of("valgrind"), dir.path());
  ASSERT_EQ(r.status, Status::Ok) << r.detail;
  ASSERT_TRUE(r.counts);
  ASSERT_EQ(r.counts->segments.size(), kMarks.size());  // the program's termination is no phase
  EXPECT_EQ(r.counts->segments[3], (CountSegment{"first_call.trace", 4000}));
  EXPECT_EQ(r.counts->source, "valgrind");
  EXPECT_EQ(r.counts->warm_calls, kCountCalls);
}

TEST(AttachCounts, DumpsThatAreNotTheMarksTheWorkerNamesFailTheRun) {
  TestDir dir("counting-mismatch");
  auto swapped = kMarks;
  std::swap(swapped[3], swapped[4]);
  write_dumps(dir.path(), swapped);
  auto r = counted_run("valgrind", kMarks);
  attach_counts(r, setup_of("valgrind"), dir.path());
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(r.reason.code, ReasonCode::ProtocolViolation);
  EXPECT_NE(r.detail.find("callgrind dumped"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.counts);
}

TEST(AttachCounts, NoDumpsAtAllFailTheRun) {  // a worker that claims valgrind's counts without callgrind
  TestDir dir("counting-none");
  auto r = counted_run("valgrind", kMarks);
  attach_counts(r, setup_of("valgrind"), dir.path());
  EXPECT_EQ(r.status, Status::Failed);
}

TEST(AttachCounts, MarksOutOfOrderOrMissingFailTheRun) {
  TestDir dir("counting-order");
  for (const auto& marks : {std::vector<std::string>{"harness_start", "setup", "import", "first_call", "second_call",
                                                     "warm_calls"},
                            std::vector<std::string>{"harness_start", "import", "setup", "second_call", "warm_calls"},
                            std::vector<std::string>{"harness_start", "import", "setup", "first_call", "verify",
                                                     "second_call", "warm_calls"}}) {
    write_dumps(dir.path(), marks);
    auto r = counted_run("valgrind", marks);
    attach_counts(r, setup_of("valgrind"), dir.path());
    EXPECT_EQ(r.status, Status::Failed) << marks.size();
    std::filesystem::remove_all(dir.path());
    std::filesystem::create_directories(dir.path());
  }
}

TEST(AttachCounts, TheHardwareCounterSegmentsAreTheWorkersOwnAndMustBeItsMarks) {
  const std::vector<std::string> marks = {"harness_start", "import", "setup", "first_call", "second_call", "warm_calls"};
  auto r = counted_run("hardware", marks);
  json segments = json::array();
  for (const auto& m : marks) segments.push_back({m, 100});
  r.worker.raw["count"]["segments"] = segments;
  r.worker.raw["count"]["scope"] = "main thread";
  auto ok = r;
  attach_counts(ok, setup_of("hardware"), "/nonexistent");
  ASSERT_EQ(ok.status, Status::Ok) << ok.detail;
  EXPECT_EQ(ok.counts->scope, "main thread");
  auto negative = r;
  negative.worker.raw["count"]["segments"][2][1] = -5;
  attach_counts(negative, setup_of("hardware"), "/nonexistent");
  EXPECT_EQ(negative.status, Status::Failed);
  auto other_source = r;  // asked for a hardware count, reports valgrind's
  attach_counts(other_source, setup_of("valgrind"), "/nonexistent");
  EXPECT_EQ(other_source.status, Status::Failed);
  EXPECT_NE(other_source.detail.find("asked to count with valgrind"), std::string::npos);
  auto fewer_calls = counted_run("hardware", marks, 3);
  fewer_calls.worker.raw["count"]["segments"] = segments;
  attach_counts(fewer_calls, setup_of("hardware"), "/nonexistent");
  EXPECT_EQ(fewer_calls.status, Status::Failed);
}

TEST(Counting, WhatCannotBeCountedSaysWhy) {
  EXPECT_EQ(count_unsupported(make_case("numpy", "matmul", 8, "f32")), "");
  EXPECT_NE(count_unsupported(make_case("jax_jit_gpu", "matmul", 8, "f32")).find("GPU"), std::string::npos);
  EXPECT_NE(count_unsupported(make_case("native", "matmul", 8, "f32")).find("native"), std::string::npos);
  EXPECT_NE(count_unsupported(make_case("numba", "matmul", 8, "f32", CachePolicy::WarmCache)).find("warm_cache"),
            std::string::npos);
}

TEST(Counting, TheWorkerRunsUnderTheToolWithAddressRandomisationOff) {
  auto s = setup_of("valgrind");
  s.valgrind = "/usr/bin/valgrind";
  s.aslr_off = {"setarch", "x86_64", "-R"};
  const auto argv = counting_argv(s, {"python", "-m", "jitbench_worker", "run"}, "/tmp/d");
  ASSERT_GE(argv.size(), 10u);
  EXPECT_EQ(argv[0], "setarch");
  EXPECT_EQ(argv[3], "/usr/bin/valgrind");
  EXPECT_EQ(argv[4], "--tool=callgrind");
  EXPECT_EQ(argv[5], "--callgrind-out-file=/tmp/d/callgrind.out.%p");
  EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()),
            (std::vector<std::string>{"--count-source", "valgrind", "--count-calls", "10"}));
  EXPECT_EQ(counting_env(s).at("OPENBLAS_NUM_THREADS"), "1");  // no idle pool thread spinning under the tool
  // A backend whose compiler reads the thread count (torch.compile): its pools as timed, under valgrind too.
  EXPECT_EQ(counting_env(s, true).count("OMP_NUM_THREADS"), 0u);
  EXPECT_EQ(counting_env(s, true).at("PYTHONHASHSEED"), "0");
  EXPECT_EQ(counting_env(s, true).at("OMP_WAIT_POLICY"), "PASSIVE");  // its idle OpenMP threads sleep
  EXPECT_EQ(counting_env(s).count("OMP_WAIT_POLICY"), 0u);
  auto hw = setup_of("hardware");
  EXPECT_EQ(counting_argv(hw, {"python"}, "/tmp/d")[0], "python");  // no tool around it
  EXPECT_EQ(counting_env(hw).at("PYTHONHASHSEED"), "0");
  EXPECT_EQ(counting_env(hw).count("OPENBLAS_NUM_THREADS"), 0u);  // the main thread's count: pools as timed
}

TEST(Counting, TheThreadsControlSaysWhatTheCountingProcessesRanWith) {
  const auto vg = threads_control({{"OMP_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1"}, {"HOME", "/x"}},
                                  kCountSourceValgrind);
  EXPECT_TRUE(vg.starts_with("OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1 (valgrind")) << vg;
  EXPECT_NE(vg.find("not set: MKL_NUM_THREADS, BLIS_NUM_THREADS, NUMBA_NUM_THREADS"), std::string::npos) << vg;
  const auto timed = threads_control({}, kCountSourceValgrind, true);
  EXPECT_TRUE(timed.starts_with("no thread setting (as in the timed runs, under valgrind too")) << timed;
  const auto hw = threads_control({{"XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false"}}, kCountSourceHardware);
  EXPECT_TRUE(hw.starts_with("XLA_FLAGS=--xla_cpu_multi_thread_eigen=false (as in the timed runs)")) << hw;
}

}  // namespace
}  // namespace jitbench
