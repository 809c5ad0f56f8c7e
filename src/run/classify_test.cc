#include "run/classify.h"

#include "results/views.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace jitbench {
namespace {

const char* kHello = R"({"type":"hello","protocol":1,"monotonic_ns":1500000000})";
const char* kCold =
    R"({"type":"result","mode":"cold","import_s":0.5,"setup_s":0.1,"first_call_s":0.2,"second_call_s":0.01,)"
    R"("total_s":0.81,"verify":{"ok":true,"rel_error":1e-7},"backend":{"name":"numpy"}})";
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

// kCold with `field` (a JSON member) added to the result.
std::string cold_with(const std::string& field) {
  std::string cold = kCold;
  cold.insert(cold.size() - 1, "," + field);
  return cold;
}

TEST(Interpret, OkColdRun) {
  auto r = classify_run(exited({kHello, kCold, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Ok) << r.detail;
  EXPECT_DOUBLE_EQ(*r.process_start_s, 0.5);
  EXPECT_DOUBLE_EQ(*r.ttfr_s(), 0.8);
  EXPECT_DOUBLE_EQ(*r.process_ttfr_s(), 1.3);
  EXPECT_EQ(r.worker.raw["backend"]["name"], "numpy");
}

TEST(Interpret, SkipIsWarnWithReason) {
  auto r = classify_run(
      exited({kHello, R"({"type":"skip","status":"warn","reason":"missing_dependency: jax"})", kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Warn);
  EXPECT_EQ(to_string(r.reason), "missing_dependency: jax");
}

TEST(Interpret, InterpreterOnlyIsWarnWithTimingsKept) {
  std::string cold = kCold;
  cold.insert(cold.size() - 1, R"(,"interpreter_only":true)");
  auto r = classify_run(exited({kHello, cold, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Warn);
  EXPECT_EQ(to_string(r.reason), "interpreter_only");
  EXPECT_TRUE(has_timings(r));  // kept, labelled, and out of every comparison (case status warn)
  EXPECT_DOUBLE_EQ(*r.first_call_s, 0.2);
}

TEST(Interpret, InterpreterOnlyWithWrongAnswerStillFails) {
  std::string cold = kCold;
  cold.insert(cold.size() - 1, R"(,"interpreter_only":true)");
  cold.replace(cold.find(R"("ok":true)"), 9, R"("ok":false)");
  auto r = classify_run(exited({kHello, cold, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(to_string(r.reason), "incorrect_result");
  EXPECT_FALSE(has_timings(r));
}

TEST(Interpret, CrashIsWorkerFailed) {
  ProcessResult p = exited({kHello});
  p.kind = ExitKind::Signaled;
  p.signal = SIGSEGV;
  auto r = classify_run(p, RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("signal 11"), std::string::npos);
}

TEST(Interpret, NonZeroExitIsWorkerFailedEvenWithResult) {
  auto r = classify_run(exited({kHello, kCold, kBye}, 3), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("code 3"), std::string::npos);
}

TEST(Interpret, TimeoutWins) {
  ProcessResult p = exited({kHello});
  p.kind = ExitKind::TimedOut;
  auto r = classify_run(p, RunMode::Cold, 0, 2.5);
  EXPECT_EQ(to_string(r.reason), "timeout");
  EXPECT_NE(r.detail.find("2.5 s"), std::string::npos);
}

TEST(Interpret, GarbageIsMalformed) {
  auto r = classify_run(exited({kHello, "this is not json", kCold, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("malformed message: not valid JSON"), std::string::npos);
}

TEST(Interpret, MissingResultIsIncomplete) {
  auto r = classify_run(exited({kHello, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_NE(r.detail.find("no result"), std::string::npos);
}

TEST(Interpret, NoMessagesAtAll) {
  auto r = classify_run(exited({}), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
}

TEST(Interpret, WrongAnswerIsIncorrectResult) {
  const char* bad =
      R"({"type":"result","mode":"cold","import_s":0.5,"setup_s":0.1,"first_call_s":0.2,"second_call_s":0.01,)"
      R"("verify":{"ok":false,"message":"rel error 0.3 > 1e-4"}})";
  auto r = classify_run(exited({kHello, bad, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "incorrect_result");
  EXPECT_EQ(r.detail, "rel error 0.3 > 1e-4");
}

TEST(Interpret, WorkerErrorMessageCarriesDetail) {
  auto r = classify_run(
      exited({kHello, R"({"type":"error","reason":"exception","message":"ValueError: boom"})", kBye}, 1), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
  EXPECT_EQ(r.detail, "exception: ValueError: boom");
}

TEST(Interpret, ModeMismatch) {
  auto r = classify_run(exited({kHello, kCold, kBye}), RunMode::Warm, 0, 10);
  EXPECT_EQ(to_string(r.reason), "worker_failed");
}

TEST(Interpret, SpawnFailure) {
  ProcessResult p;
  p.kind = ExitKind::SpawnFailed;
  p.spawn_error = "/nope: No such file or directory";
  auto r = classify_run(p, RunMode::Cold, 0, 10);
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

}  // namespace
}  // namespace jitbench

namespace jitbench {
namespace {

// Each check a lying worker must fail.
TEST(Interpret, PhasesLargerThanTheFirstCallFail) {
  auto r = classify_run(exited({kHello, cold_with(R"("first_call":{"phases":{"compile":0.15,"trace":0.1}})"), kBye}),
                         RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("phases add up to 0.25"), std::string::npos) << r.detail;
  auto honest = classify_run(exited({kHello, cold_with(R"("first_call":{"phases":{"compile":0.15}})"), kBye}),
                              RunMode::Cold, 0, 10);
  EXPECT_EQ(honest.status, Status::Ok) << honest.detail;
}

TEST(Interpret, SegmentsLargerThanTheTotalFail) {
  std::string cold = kCold;
  cold.replace(cold.find(R"("total_s":0.81)"), 14, R"("total_s":0.60)");
  auto r = classify_run(exited({kHello, cold, kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("worker's own total"), std::string::npos) << r.detail;
}

TEST(Interpret, WorkerTimeLongerThanTheProcessFails) {
  auto p = exited({kHello, kCold, kBye});
  p.wall_s = 1.0;  // process start 0.5 s + total 0.81 s cannot fit in 1 s
  auto r = classify_run(p, RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "inconsistent_timings");
  EXPECT_NE(r.detail.find("spawn to exit"), std::string::npos) << r.detail;
}

TEST(Interpret, WrongFirstCallResultFails) {
  auto r = classify_run(
      exited({kHello, cold_with(R"("verify_first":{"ok":false,"message":"relative error 0.5 exceeds 1e-4"})"), kBye}),
      RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "incorrect_result");
  EXPECT_NE(r.detail.find("first (compiling) call"), std::string::npos);
}

TEST(Interpret, WorkStillQueuedAfterTheClockFails) {
  auto r = classify_run(exited({kHello, cold_with(R"("sync":{"pending_after_last_call":true})"), kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(to_string(r.reason), "unsynchronized");
  auto unknown = classify_run(exited({kHello, cold_with(R"("sync":{"pending_after_last_call":null})"), kBye}), RunMode::Cold, 0, 10);
  EXPECT_EQ(unknown.status, Status::Ok);
}

}  // namespace
}  // namespace jitbench

namespace jitbench {
namespace {

RunRecord judged(nlohmann::json worker, CachePolicy policy = CachePolicy::WarmCache) {
  RunRecord r;
  r.status = Status::Ok;
  r.worker = parse_worker_report(std::move(worker));
  judge_cache_claims(r, policy);
  return r;
}

TEST(CacheClaims, EveryClaimCanFail) {
  const nlohmann::json read = {{"available", true}, {"entries_read", 3}};
  auto hit = judged({{"cache_events", {{"hits", 2}, {"misses", 0}}}, {"cache_files", read}});
  EXPECT_EQ(hit.status, Status::Ok);
  EXPECT_NE(hit.detail.find("3 cache entries read"), std::string::npos);
  EXPECT_EQ(to_string(judged({{"cache_events", {{"hits", 0}, {"misses", 1}}}}).reason), "cache_not_used");
  // Silence is not a hit.
  EXPECT_EQ(to_string(judged({{"cache_events", nlohmann::json::object()}}).reason), "cache_unverified");
  // A miss beside a hit: part of the first call compiled anew.
  EXPECT_EQ(to_string(judged({{"cache_events", {{"hits", 1}, {"misses", 1}}}}).reason), "cache_partially_used");
  // A framework (or worker) that claims a hit while the kernel saw nothing read.
  auto lie = judged({{"cache_events", {{"hits", 1}, {"misses", 0}}},
                     {"cache_files", {{"available", true}, {"entries_read", 0}}}});
  EXPECT_EQ(to_string(lie.reason), "cache_evidence_conflict");
}

TEST(CacheClaims, ReadingOldEntriesIsNotCold) {
  const auto cold = judged({{"cache_files", {{"available", true}, {"entries_read", 2}}}}, CachePolicy::ColdCache);
  EXPECT_EQ(to_string(cold.reason), "cache_not_cold");
  const auto fresh = judged({{"cache_files", {{"available", true}, {"entries_read", 0}}}}, CachePolicy::ColdCache);
  EXPECT_EQ(fresh.status, Status::Ok);
}

TEST(Classify, UnknownSkipReasonIsAProtocolError) {
  auto r = classify_run(exited({kHello, R"({"type":"skip","status":"warn","reason":"feeling_lazy"})", kBye}),
                        RunMode::Cold, 0, 10);
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_NE(r.detail.find("unknown skip reason 'feeling_lazy'"), std::string::npos);
}

}  // namespace
}  // namespace jitbench
