#include "run/classify.h"

#include "results/views.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace jitbench {
namespace {

const char* kHello = R"({"type":"hello","protocol":1,"monotonic_ns":1500000000})";
// A complete cold result: every field a check needs (docs/protocol.md).
const char* kCold =
    R"({"type":"result","mode":"cold","import_s":0.5,"setup_s":0.1,"first_call_s":0.2,"second_call_s":0.01,)"
    R"("total_s":0.81,"verify":{"ok":true,"rel_error":1e-7},"verify_first":{"ok":true},"backend":{"name":"numpy"},)"
    R"("first_call":{"phases":{},"phase_names":["compile","trace"],"phase_sources":{}},)"
    R"("sync":{"method":"none","pending_after_last_call":null},"precision":{"matmul":"ieee_fp32"}})";
const char* kBye = R"({"type":"bye"})";

ProcessResult exited(std::vector<std::string> lines, int code = 0) {
  ProcessResult p;
  p.kind = ExitKind::Exited;
  p.exit_code = code;
  p.spawn_ns = 1000000000;
  p.wall_s = 2.0;  // spawn -> reaped, as jitbench measured it
  p.lines = std::move(lines);
  return p;
}

// kCold with `field` (a JSON member) added to the result, or replacing the one of that name.
std::string cold_with(const std::string& field) {
  auto j = nlohmann::json::parse(kCold);
  const auto add = nlohmann::json::parse("{" + field + "}");
  for (const auto& [k, v] : add.items()) j[k] = v;
  return j.dump();
}
// kCold without one of its fields.
std::string cold_without(const std::string& pointer) {
  auto j = nlohmann::json::parse(kCold);
  const auto ptr = nlohmann::json::json_pointer(pointer);
  j[ptr.parent_pointer()].erase(ptr.back());
  return j.dump();
}

RunRequest ask(RunMode mode, double timeout_s = 10) {
  RunRequest req;
  req.mode = mode;
  req.timeout_s = timeout_s;
  req.warm.max = 3;
  return req;
}

TEST(Interpret, OkColdRun) {
  auto r = classify_run(exited({kHello, kCold, kBye}), ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Ok) << r.detail;
  EXPECT_DOUBLE_EQ(*r.process_start_s, 0.5);
  EXPECT_DOUBLE_EQ(*r.ttfr_s(), 0.8);
  EXPECT_DOUBLE_EQ(*r.process_ttfr_s(), 1.3);
  EXPECT_EQ(r.worker.raw["backend"]["name"], "numpy");
}

TEST(Interpret, SkipIsWarnWithReason) {
  auto r = classify_run(
      exited({kHello, R"({"type":"skip","status":"warn","reason":"missing_dependency: jax"})", kBye}), ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Warn);
  EXPECT_EQ(to_string(r.reason), "missing_dependency: jax");
}

TEST(Interpret, InterpreterOnlyIsWarnWithTimingsKept) {
  std::string cold = kCold;
  cold.insert(cold.size() - 1, R"(,"interpreter_only":true)");
  auto r = classify_run(exited({kHello, cold, kBye}), ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Warn);
  EXPECT_EQ(to_string(r.reason), "interpreter_only");
  EXPECT_TRUE(has_timings(r));  // kept, labelled, and out of every comparison (case status warn)
  EXPECT_DOUBLE_EQ(*r.first_call_s, 0.2);
}

TEST(Interpret, InterpreterOnlyWithWrongAnswerStillFails) {
  std::string cold = kCold;
  cold.insert(cold.size() - 1, R"(,"interpreter_only":true)");
  cold.replace(cold.find(R"("ok":true)"), 9, R"("ok":false)");
  auto r = classify_run(exited({kHello, cold, kBye}), ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(to_string(r.reason), "incorrect_result");
  EXPECT_FALSE(has_timings(r));
}

TEST(Interpret, CrashIsWorkerFailed) {
  ProcessResult p = exited({kHello});
  p.kind = ExitKind::Signaled;
  p.signal = SIGSEGV;
  auto r = classify_run(p, ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("signal 11"), std::string::npos);
}

TEST(Interpret, NonZeroExitIsWorkerFailedEvenWithResult) {
  auto r = classify_run(exited({kHello, kCold, kBye}, 3), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("code 3"), std::string::npos);
}

TEST(Interpret, TimeoutWins) {
  ProcessResult p = exited({kHello});
  p.kind = ExitKind::TimedOut;
  auto r = classify_run(p, ask(RunMode::Cold, 2.5));
  EXPECT_EQ(to_string(r.reason), "timeout");
  EXPECT_NE(r.detail.find("2.5 s"), std::string::npos);
}

TEST(Interpret, GarbageIsMalformed) {
  auto r = classify_run(exited({kHello, "this is not json", kCold, kBye}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("malformed message: not valid JSON"), std::string::npos);
}

TEST(Interpret, MissingResultIsIncomplete) {
  auto r = classify_run(exited({kHello, kBye}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("no result"), std::string::npos);
}

TEST(Interpret, NoMessagesAtAll) {
  auto r = classify_run(exited({}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "worker_failed");
}

TEST(Interpret, WrongAnswerIsIncorrectResult) {
  const auto bad = cold_with(R"("verify":{"ok":false,"message":"rel error 0.3 > 1e-4"})");
  auto r = classify_run(exited({kHello, bad, kBye}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "incorrect_result");
  EXPECT_EQ(r.detail, "rel error 0.3 > 1e-4");
}

TEST(Interpret, WorkerErrorMessageCarriesDetail) {
  auto r = classify_run(
      exited({kHello, R"({"type":"error","reason":"exception","message":"ValueError: boom"})", kBye}, 1), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_EQ(r.detail, "exception: ValueError: boom");
}

TEST(Interpret, ModeMismatch) {
  auto r = classify_run(exited({kHello, kCold, kBye}), ask(RunMode::Warm));
  EXPECT_EQ(to_string(r.reason), "protocol_violation: a warm run answered as mode 'cold'");
}

// A field a check needs, left out or malformed: a named failure, never a skipped check.
TEST(Interpret, EveryFieldAChecksNeedsIsRequired) {
  const std::pair<std::string, std::string> cases[] = {
      {cold_without("/total_s"), "protocol_violation: missing total_s"},
      {cold_without("/verify_first"), "protocol_violation: missing verify_first"},
      {cold_without("/second_call_s"), "protocol_violation: missing second_call_s"},
      {cold_without("/first_call"), "protocol_violation: missing first_call"},
      {cold_without("/sync/pending_after_last_call"), "protocol_violation: missing sync.pending_after_last_call"},
      {cold_without("/precision/matmul"), "protocol_violation: missing precision.matmul"},
      {cold_with(R"("import_s":-0.1)"), "protocol_violation: import_s is not a duration (0, or >= 1 ns)"},
      {cold_with(R"("verify_first":{"message":"no ok"})"), "protocol_violation: verify_first.ok is not true or false"},
      // A phase outside phase_names, or named twice, would escape "phases <= first call".
      {cold_with(R"("first_call":{"phases":{"warmup":-1.0},"phase_names":["compile"]})"),
       "protocol_violation: phase 'warmup' is not declared in phase_names"},
      {cold_with(R"("first_call":{"phases":{"compile":-1.0},"phase_names":["compile"]})"),
       "protocol_violation: phase 'compile' is not a duration (0, or >= 1 ns)"},
      {cold_with(R"("first_call":{"phases":{"compile":0.1},"phase_names":["compile","compile"]})"),
       "protocol_violation: phase 'compile' declared twice"},
  };
  for (const auto& [result, reason] : cases) {
    auto r = classify_run(exited({kHello, result, kBye}), ask(RunMode::Cold));
    EXPECT_EQ(r.status, Status::Failed) << reason;
    EXPECT_EQ(to_string(r.reason), reason);
    EXPECT_FALSE(r.total_s.has_value()) << "times of a result that breaks the protocol are not believed";
  }
}

TEST(Interpret, AWarmRunMustReportTheCallsAskedFor) {
  auto warm = nlohmann::json::parse(cold_without("/second_call_s"));
  warm["mode"] = "warm";
  warm["calls_s"] = {0.01, 0.01};
  warm["total_s"] = 0.9;
  auto r = classify_run(exited({kHello, warm.dump(), kBye}), ask(RunMode::Warm));
  EXPECT_EQ(to_string(r.reason), "protocol_violation: calls_s holds 2 calls, 3 were asked for");
  warm["calls_s"] = {0.01, 0.01, 0.01};
  EXPECT_EQ(classify_run(exited({kHello, warm.dump(), kBye}), ask(RunMode::Warm)).status, Status::Ok);
}

TEST(Interpret, ArithmeticTheDeviceCannotDoFails) {
  auto r = classify_run(exited({kHello, cold_with(R"("precision":{"matmul":"bf16"})"), kBye}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "precision_mismatch");
  EXPECT_NE(r.detail.find("bf16 products for float32 on a CPU"), std::string::npos) << r.detail;
  auto gpu = ask(RunMode::Cold);
  gpu.gpu = true;
  EXPECT_EQ(classify_run(exited({kHello, cold_with(R"("precision":{"matmul":"tf32"})"), kBye}), gpu).status,
            Status::Ok);
  gpu.precision = Precision::Highest;  // jitbench asked for IEEE float32
  EXPECT_EQ(to_string(classify_run(exited({kHello, cold_with(R"("precision":{"matmul":"tf32"})"), kBye}), gpu).reason),
            "precision_mismatch");
  auto f64 = ask(RunMode::Cold);
  f64.dtype = "f64";
  EXPECT_EQ(to_string(classify_run(exited({kHello, kCold, kBye}), f64).reason), "precision_mismatch");
}

TEST(Interpret, SpawnFailure) {
  ProcessResult p;
  p.kind = ExitKind::SpawnFailed;
  p.spawn_error = "/nope: No such file or directory";
  auto r = classify_run(p, ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("/nope"), std::string::npos);
}

TEST(SettleStatus, MostSevereRunWins) {
  CaseResult c;
  RunRecord ok;
  ok.status = Status::Ok;
  RunRecord warn;
  warn.status = Status::Warn;
  warn.reason = {ReasonCode::GpuUnavailable, ""};
  c.cold = {ok, warn};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Warn);
  EXPECT_EQ(to_string(c.reason), "gpu_unavailable");
  RunRecord bad;
  bad.status = Status::Failed;
  bad.reason = {ReasonCode::Timeout, ""};
  c.warm = {ok, bad};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Failed);
  EXPECT_EQ(to_string(c.reason), "timeout");
}

// A case measured beside another stops when the other's process is
// interrupted, all its own runs ok: it is not done, and must not be kept.
TEST(SettleStatus, ACaseStoppedByASignalBetweenItsProcessesIsInterrupted) {
  CaseResult c;
  RunRecord ok;
  ok.status = Status::Ok;
  c.cold = {ok, ok};
  c.sampling.cold_stopped = "interrupted";
  settle_status(c);
  EXPECT_EQ(c.status, Status::Failed);
  EXPECT_EQ(to_string(c.reason), "interrupted");
  c.sampling.cold_stopped = "fixed_count";
  c.sampling.warm_stopped = "interrupted";
  settle_status(c);
  EXPECT_EQ(to_string(c.reason), "interrupted");
  c.sampling.warm_stopped = "fixed_count";
  settle_status(c);
  EXPECT_EQ(c.status, Status::Ok);
}

TEST(SettleStatus, AnAheadOfTimeCompileThatContradictsThePhasesWarns) {
  CaseResult c;
  RunRecord cold;
  cold.status = Status::Ok;
  cold.worker = parse_worker_report({{"first_call", {{"phases", {{"compile", 0.01}}}, {"phase_names", {"compile"}}}}});
  c.cold = {cold, cold};
  RunRecord aot;
  aot.mode = RunMode::Aot;
  aot.status = Status::Ok;
  aot.worker = parse_worker_report({{"aot", {{"compile_s", 0.012}}}});
  c.crosscheck = aot;
  settle_status(c);
  EXPECT_EQ(c.status, Status::Ok) << c.detail;  // within a factor of 2
  c.crosscheck->worker = parse_worker_report({{"aot", {{"compile_s", 0.5}}}});
  settle_status(c);
  EXPECT_EQ(to_string(c.reason), "crosscheck_disagrees");
  EXPECT_NE(c.detail.find("compile 0.01 s by the events vs 0.5 s ahead of time"), std::string::npos) << c.detail;
  c.crosscheck->status = Status::Failed;
  c.crosscheck->reason = {ReasonCode::Timeout, ""};
  settle_status(c);
  EXPECT_EQ(to_string(c.reason), "crosscheck_failed");
  c.crosscheck->status = Status::Warn;  // a skip: the function has no AOT path
  c.crosscheck->reason = {ReasonCode::Unsupported, "no AOT path"};
  settle_status(c);
  EXPECT_EQ(c.status, Status::Ok);
}

}  // namespace
}  // namespace jitbench

namespace jitbench {
namespace {

// Each check a lying worker must fail.
TEST(Interpret, PhasesLargerThanTheFirstCallFail) {
  auto r = classify_run(exited({kHello, cold_with(R"("first_call":{"phases":{"compile":0.15,"trace":0.1},)"
                                                   R"("phase_names":["compile","trace"]})"), kBye}),
                         ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("phases add up to 0.25"), std::string::npos) << r.detail;
  auto honest = classify_run(exited({kHello, cold_with(R"("first_call":{"phases":{"compile":0.15},)"
                                                        R"("phase_names":["compile"]})"), kBye}),
                              ask(RunMode::Cold));
  EXPECT_EQ(honest.status, Status::Ok) << honest.detail;
}

TEST(Interpret, SegmentsLargerThanTheTotalFail) {
  auto r = classify_run(exited({kHello, cold_with(R"("total_s":0.60)"), kBye}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("worker's own total"), std::string::npos) << r.detail;
}

TEST(Interpret, WorkerTimeLongerThanTheProcessFails) {
  auto p = exited({kHello, kCold, kBye});
  p.wall_s = 1.0;  // process start 0.5 s + total 0.81 s cannot fit in 1 s
  auto r = classify_run(p, ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("spawn to exit"), std::string::npos) << r.detail;
}

// spawn at 1.0 s, reaped at 3.0 s; the worker's first line at 1.2 s, its result
// stamped at 2.5 s: 0.3 harness import + 0.81 total + 0.05 + 0.1 + 0.04 = 1.3 s.
const char* kHarness = R"("harness":{"started_monotonic_ns":1200000000,"sent_monotonic_ns":2500000000,)"
                       R"("marks_monotonic_ns":{"measured_start":1500000000,"measured_end":2310000000,)"
                       R"("observed":2360000000,"verified":2460000000},)"
                       R"("import_s":0.3,"observe_s":0.05,"verify_s":0.1,"report_s":0.04})";

TEST(Interpret, TheBucketsTileTheWallTime) {
  auto r = classify_run(exited({kHello, cold_with(kHarness), kBye}), ask(RunMode::Cold));
  ASSERT_EQ(r.status, Status::Ok) << r.detail;
  ASSERT_TRUE(r.buckets);
  const auto& b = *r.buckets;
  EXPECT_NEAR(b.interpreter_start_s, 0.2, 1e-12);
  EXPECT_NEAR(b.harness_exit_s, 0.5, 1e-12);
  EXPECT_NEAR(b.unattributed_s, 0.0, 1e-12);
  EXPECT_NEAR(b.interpreter_start_s + b.harness_import_s + *r.total_s + b.harness_observe_s + b.harness_verify_s +
                  b.harness_report_s + b.harness_exit_s,
              r.wall_s, 1e-12);
  // Process TTFR: the interpreter's start-up, not the hello's (which holds the harness's own imports).
  EXPECT_NEAR(*r.process_ttfr_s(), 0.2 + 0.8, 1e-12);
}

TEST(Interpret, ABucketThatDoesNotFitItsSpanFails) {
  // The harness's import claimed as 0.1 s of the 0.3 it took: 0.2 s in no bucket.
  auto light = nlohmann::json::parse("{" + std::string(kHarness) + "}");
  light["harness"]["import_s"] = 0.1;
  auto r = classify_run(exited({kHello, cold_with("\"harness\":" + light["harness"].dump()), kBye}),
                        ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("a gap no bucket holds"), std::string::npos) << r.detail;
  light["harness"]["import_s"] = 0.5;  // 0.2 s counted twice
  r = classify_run(exited({kHello, cold_with("\"harness\":" + light["harness"].dump()), kBye}), ask(RunMode::Cold));
  EXPECT_NE(r.detail.find("buckets that overlap"), std::string::npos) << r.detail;
  light["harness"]["import_s"] = 0.3;
  light["harness"]["sent_monotonic_ns"] = 3200000000LL;  // after the exit jitbench saw
  light["harness"]["started_monotonic_ns"] = 1900000000LL;
  r = classify_run(exited({kHello, cold_with("\"harness\":" + light["harness"].dump()), kBye}), ask(RunMode::Cold));
  EXPECT_NE(r.detail.find("after jitbench saw it exit"), std::string::npos) << r.detail;
}

TEST(Interpret, ABucketReportedInAnotherFailsByItsMarks) {
  // 0.1 s of verification reported as observation: the sum fits, the marks do not.
  auto moved = nlohmann::json::parse("{" + std::string(kHarness) + "}");
  moved["harness"]["observe_s"] = 0.15;
  moved["harness"]["verify_s"] = 0.0;
  auto r = classify_run(exited({kHello, cold_with("\"harness\":" + moved["harness"].dump()), kBye}),
                        ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  ASSERT_TRUE(r.buckets);
  EXPECT_NEAR(r.buckets->unattributed_s, 0.0, 1e-9);
  EXPECT_NE(r.detail.find("harness_observe_s is 0.15 s, but the worker's own marks around it are 0.05 s apart"),
            std::string::npos) << r.detail;
  // Without its marks the harness is not one jitbench can place.
  moved["harness"].erase("marks_monotonic_ns");
  r = classify_run(exited({kHello, cold_with("\"harness\":" + moved["harness"].dump()), kBye}), ask(RunMode::Cold));
  EXPECT_NE(r.detail.find("missing harness.marks_monotonic_ns"), std::string::npos) << r.detail;
}

TEST(Interpret, AMalformedHarnessObjectIsAProtocolViolation) {
  auto r = classify_run(exited({kHello, cold_with(R"("harness":{"import_s":-1})"), kBye}), ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_NE(r.detail.find("harness.import_s"), std::string::npos) << r.detail;
}

TEST(Interpret, WrongFirstCallResultFails) {
  auto r = classify_run(
      exited({kHello, cold_with(R"("verify_first":{"ok":false,"message":"relative error 0.5 exceeds 1e-4"})"), kBye}),
      ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "incorrect_result");
  EXPECT_NE(r.detail.find("first (compiling) call"), std::string::npos);
}

TEST(Interpret, WorkStillQueuedAfterTheClockFails) {
  auto r = classify_run(exited({kHello, cold_with(R"("sync":{"pending_after_last_call":true})"), kBye}), ask(RunMode::Cold));
  EXPECT_EQ(to_string(r.reason), "unsynchronized");
  auto unknown = classify_run(exited({kHello, cold_with(R"("sync":{"pending_after_last_call":null})"), kBye}), ask(RunMode::Cold));
  EXPECT_EQ(unknown.status, Status::Ok);
}

}  // namespace
}  // namespace jitbench

namespace jitbench {
namespace {

// A run whose cache directory jitbench saw as `seen`, judged under `policy`.
RunRecord judged(nlohmann::json worker, CacheObservation seen, CachePolicy policy = CachePolicy::WarmCache,
                 bool writes_by_default = false) {
  RunRecord r;
  r.status = Status::Ok;
  r.worker = parse_worker_report(std::move(worker));
  r.cache_seen = seen;
  judge_cache_claims(r, policy, writes_by_default);
  return r;
}
CacheObservation seen_read(std::uint64_t before, std::uint64_t read) {
  CacheObservation o;
  o.recorded = o.watched = true;
  o.files_before = o.files_after = before;
  o.entries_read = read;
  return o;
}
const nlohmann::json kHit = {{"cache_events", {{"hits", 2}, {"misses", 0}}}};

TEST(CacheClaims, AWarmCacheHitNeedsAnEntryJitbenchSawRead) {
  auto hit = judged(kHit, seen_read(4, 3));
  EXPECT_EQ(hit.status, Status::Ok);
  EXPECT_NE(hit.detail.find("jitbench saw 3 of 4 cache entries read"), std::string::npos) << hit.detail;
  EXPECT_EQ(to_string(judged({{"cache_events", {{"hits", 0}, {"misses", 1}}}}, seen_read(4, 0)).reason),
            "cache_not_used");
  // Silence is not a hit.
  EXPECT_EQ(to_string(judged({{"cache_events", nlohmann::json::object()}}, seen_read(4, 3)).reason),
            "cache_unverified");
  EXPECT_EQ(to_string(judged({{"cache_events", {{"hits", 1}, {"misses", 1}}}}, seen_read(4, 3)).reason),
            "cache_partially_used");
  // A hit with nothing read, or nothing there to read.
  EXPECT_EQ(to_string(judged(kHit, seen_read(4, 0)).reason), "cache_evidence_conflict");
  EXPECT_EQ(to_string(judged(kHit, seen_read(0, 0)).reason), "cache_evidence_conflict");
  // The worker's own count is not evidence: only what jitbench saw.
  auto worker_says = kHit;
  worker_says["cache_files"] = {{"available", true}, {"entries_read", 3}};
  EXPECT_EQ(to_string(judged(worker_says, seen_read(4, 0)).reason), "cache_evidence_conflict");
  // Where jitbench could not watch, a hit is never ok.
  auto blind = seen_read(4, 0);
  blind.watched = false;
  blind.note = "inotify is unavailable";
  auto unverified = judged(kHit, blind);
  EXPECT_EQ(to_string(unverified.reason), "cache_unverified");
  EXPECT_NE(unverified.detail.find("inotify is unavailable"), std::string::npos);
}

TEST(CacheClaims, AColdRunThatWasNotColdIsSaid) {
  const nlohmann::json quiet = {{"cache_events", nlohmann::json::object()}};  // no counters: no persistent cache
  const auto cold = [](nlohmann::json w, CacheObservation o, bool writes = false) {
    return judged(std::move(w), o, CachePolicy::ColdCache, writes);
  };
  EXPECT_EQ(cold(quiet, seen_read(0, 0)).status, Status::Ok);
  // The framework counted a hit.
  EXPECT_EQ(to_string(cold(kHit, seen_read(0, 0)).reason), "cache_not_cold");
  // Files in the directory when the run started.
  EXPECT_EQ(to_string(cold(quiet, seen_read(2, 0)).reason), "cache_not_cold");
  // Something written by a framework whose defaults write nothing ...
  auto wrote = seen_read(0, 0);
  wrote.added = wrote.files_after = 1;
  EXPECT_EQ(to_string(cold(quiet, wrote).reason), "cache_not_cold");
  // ... while torch.compile and Triton write (and may read back) their own entries.
  EXPECT_EQ(cold(kHit, wrote, /*writes=*/true).status, Status::Ok);
  // A cache the framework reports outside the case's directory.
  auto outside = cold({{"cache", {{"outside_case_dir", {"/home/u/.cache/jax"}}}}}, seen_read(0, 0));
  EXPECT_EQ(to_string(outside.reason), "cache_not_cold");
  EXPECT_NE(outside.detail.find("/home/u/.cache/jax"), std::string::npos);
  // warm_process is judged the same way.
  EXPECT_EQ(to_string(judged(kHit, seen_read(0, 0), CachePolicy::WarmProcess).reason), "cache_not_cold");
}

TEST(Classify, UnknownSkipReasonIsAProtocolError) {
  auto r = classify_run(exited({kHello, R"({"type":"skip","status":"warn","reason":"feeling_lazy"})", kBye}),
                        ask(RunMode::Cold));
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_NE(r.detail.find("unknown skip reason 'feeling_lazy'"), std::string::npos);
}

}  // namespace
}  // namespace jitbench
