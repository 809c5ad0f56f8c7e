#include "run/classify.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "results/anatomy.h"
#include "results/read.h"
#include "run/protocol.h"
#include "util/json_get.h"

namespace jitbench {
namespace {
using nlohmann::json;

// The messages of one conversation, checked line by line (run/protocol.h).
struct Conversation {
  std::optional<Message> hello, result, skip, error;
  bool bye = false;
  std::string protocol_error;  // the first malformed line, or ""
};

Conversation read_conversation(const ProcessResult& p) {
  Conversation c;
  for (const auto& line : p.lines) {
    auto m = parse_message(line);
    if (auto* e = std::get_if<std::string>(&m)) {
      if (c.protocol_error.empty()) c.protocol_error = *e;
      continue;
    }
    auto& msg = std::get<Message>(m);
    switch (msg.type) {
      case MessageType::Hello: c.hello = msg; break;
      case MessageType::Result: c.result = msg; break;
      case MessageType::Skip: c.skip = msg; break;
      case MessageType::Error: c.error = msg; break;
      case MessageType::Probe:
      case MessageType::Ceilings:
      case MessageType::Environment:
      case MessageType::Versions:
      case MessageType::Hashes: break;
      case MessageType::Bye: c.bye = true; break;
    }
  }
  if (p.channel_overflow && c.protocol_error.empty()) c.protocol_error = "a message exceeded the size limit";
  if (!p.trailing.empty() && c.protocol_error.empty()) c.protocol_error = "the last message has no newline";
  return c;
}

// The worker's report: what the artifact keeps of the result message (the
// rest is read into the run record: its times, the harness's buckets). A new
// field's path: docs/architecture.md, "An artifact field, from worker to
// schema"; tests/test_artifact_fields.py fails on a field one side lacks.
constexpr const char* kReportKeys[] = {"backend", "device", "verify", "verify_first", "cache", "workload", "env",
                                       "cache_policy", "first_call", "compiles", "cache_events", "cache_events_later",
                                       "cache_files", "sync", "precision", "memory", "aot",
                                       "anatomy", "instrumentation", "case_shared", "count", "local_modules",
                                       "workload_record"};

// The buckets must tile the worker's life between its own marks: each one the
// span from its mark to the next. A worker that leaves one bucket's time out
// and adds it to another keeps the sum (unattributed_s), not the marks.
std::string bucket_mismatch(const json& h, const HarnessBuckets& b, double total_s) {
  std::vector<long long> at = {h["started_monotonic_ns"].get<long long>()};
  for (const char* k : kHarnessMarks) at.push_back(h["marks_monotonic_ns"][k].get<long long>());
  at.push_back(h["sent_monotonic_ns"].get<long long>());
  const std::pair<const char*, double> claimed[] = {{"harness_import_s", b.harness_import_s}, {"total_s", total_s},
                                                    {"harness_observe_s", b.harness_observe_s},
                                                    {"harness_verify_s", b.harness_verify_s},
                                                    {"harness_report_s", b.harness_report_s}};
  for (std::size_t i = 0; i < std::size(claimed); ++i) {
    const double span = static_cast<double>(at[i + 1] - at[i]) / 1e9;
    if (std::abs(claimed[i].second - span) > std::max(kTimingSlackS, kTimingSlackFraction * std::abs(span)))
      return fmt::format("{} is {:.6g} s, but the worker's own marks around it are {:.6g} s apart (a bucket's time "
                         "reported in another)", claimed[i].first, claimed[i].second, span);
  }
  return "";
}

// The worker's harness buckets placed between jitbench's spawn and the exit
// (both read on CLOCK_MONOTONIC, as the worker's two stamps are).
std::optional<HarnessBuckets> place_buckets(const json& body, const RunRecord& r, const ProcessResult& p) {
  if (!body.contains("harness") || p.spawn_ns <= 0 || !r.total_s) return std::nullopt;
  const auto& h = body["harness"];
  const auto ns = [&](const char* k) { return h[k].get<long long>(); };
  HarnessBuckets b;
  b.interpreter_start_s = static_cast<double>(ns("started_monotonic_ns") - p.spawn_ns) / 1e9;
  b.harness_import_s = h["import_s"].get<double>();
  b.harness_observe_s = h["observe_s"].get<double>();
  b.harness_verify_s = h["verify_s"].get<double>();
  b.harness_report_s = h["report_s"].get<double>();
  b.worker_span_s = static_cast<double>(ns("sent_monotonic_ns") - ns("started_monotonic_ns")) / 1e9;
  b.harness_exit_s = p.wall_s - static_cast<double>(ns("sent_monotonic_ns") - p.spawn_ns) / 1e9;
  b.unattributed_s = b.worker_span_s - (b.harness_import_s + *r.total_s + b.harness_observe_s + b.harness_verify_s +
                                        b.harness_report_s);
  b.mismatch = bucket_mismatch(h, b, *r.total_s);
  return b;
}

void take_result(RunRecord& r, const Conversation& c, const ProcessResult& p, bool times) {
  if (c.hello && p.spawn_ns > 0) {
    const double dt = static_cast<double>(c.hello->body["monotonic_ns"].get<long long>() - p.spawn_ns) / 1e9;
    if (dt >= 0) r.process_start_s = dt;
  }
  json report = json::object();
  if (c.result) {
    const auto& b = c.result->body;
    if (times) read_measured_times(b, r);
    if (times) r.buckets = place_buckets(b, r, p);
    for (const char* k : kReportKeys)
      if (b.contains(k)) report[k] = b[k];
  }
  if (c.skip && c.skip->body.contains("backend")) report["backend"] = c.skip->body["backend"];
  r.worker = parse_worker_report(std::move(report));
}

void fail(RunRecord& r, ReasonCode code, std::string detail) {
  r.status = Status::Failed;
  r.reason = {code, ""};
  r.detail = std::move(detail);
}

// How the process ended, before anything it said is believed.
bool judge_exit(RunRecord& r, const ProcessResult& p, const Conversation& c, double timeout_s) {
  if (p.interrupted) fail(r, ReasonCode::Interrupted, "jitbench was interrupted while this run was in flight");
  else if (p.kind == ExitKind::TimedOut)
    fail(r, ReasonCode::Timeout, fmt::format("killed after the {:g} s timeout (raise it with --timeout)", timeout_s));
  else if (p.kind == ExitKind::Signaled)
    fail(r, ReasonCode::WorkerFailed, fmt::format("killed by signal {} ({})", p.signal, strsignal(p.signal)));
  else if (c.error)
    fail(r, ReasonCode::WorkerFailed, fmt::format("{}: {}", c.error->body["reason"].get<std::string>(),
                                                  c.error->body["message"].get<std::string>()));
  else if (p.exit_code != 0) fail(r, ReasonCode::WorkerFailed, fmt::format("exited with code {}", p.exit_code));
  else if (!c.protocol_error.empty()) fail(r, ReasonCode::WorkerFailed, "malformed message: " + c.protocol_error);
  else return false;
  return true;
}

// A skip: the worker says why the case cannot run here (warn), in a name jitbench knows.
void judge_skip(RunRecord& r, const Message& skip) {
  const auto text = skip.body["reason"].get<std::string>();
  const auto reason = parse_reason(text);
  const bool warnable = reason && (reason->code == ReasonCode::MissingDependency ||
                                   reason->code == ReasonCode::GpuUnavailable ||
                                   reason->code == ReasonCode::Unsupported);
  if (!warnable) {
    fail(r, ReasonCode::WorkerFailed, fmt::format("malformed message: unknown skip reason '{}'", text));
    return;
  }
  r.status = Status::Warn;
  r.reason = *reason;
  r.detail = string_or(skip.body, "detail", "");
}

// A failed check's words, with its error against its tolerance where the worker gave both.
// Not added where the worker's message already states them; an error within
// the tolerance beside a failure says why it failed all the same.
std::string verdict_vs_tolerance(const Verification& v) {
  const bool stated = v.message.find("tolerance") != std::string::npos || v.message.find("exceeds") != std::string::npos;
  if (!v.error || !v.tolerance || stated) return v.message;
  const bool within = *v.error <= *v.tolerance;  // false for NaN
  return fmt::format("{} [error {:.3g} vs tolerance {:.3g}{}{}]", v.message, *v.error, *v.tolerance,
                     v.metric.empty() ? "" : ", " + v.metric,
                     within ? "; within it: the check failed for the reason above (NaN, inputs changed, ...)" : "");
}

// What the result claims, checked: every field a check needs present, both
// outputs verified, the arithmetic possible, the device idle, the numbers possible.
void judge_result(RunRecord& r, const Message& result, const RunRequest& req) {
  const auto& w = r.worker;
  if (auto v = result_violation(result.body, req.mode, req.warm); !v.empty()) {
    r.status = Status::Failed;
    r.reason = {ReasonCode::ProtocolViolation, v};
    r.detail = "the result lacks a field one of jitbench's checks needs, or holds one it cannot take: " + v +
               " (docs/protocol.md)";
  } else if (!w.verify_first.ok)
    fail(r, ReasonCode::IncorrectResult, "the first (compiling) call's result: " + verdict_vs_tolerance(w.verify_first));
  else if (!w.verify.ok) fail(r, ReasonCode::IncorrectResult, verdict_vs_tolerance(w.verify));
  else if (auto why = precision_mismatch(*w.matmul_precision, req); !why.empty())
    fail(r, ReasonCode::PrecisionMismatch, why);
  else if (w.pending_after_last.value_or(false))
    fail(r, ReasonCode::Unsynchronized,
         "the device still had work queued when the clock stopped: the timings do not cover the computation");
  else if (auto why = timing_inconsistency(r)) fail(r, ReasonCode::InconsistentTimings, *why);
  else if (auto mem = r.memory_inconsistency(); !mem.empty()) {
    r.status = Status::Failed;
    r.reason = {ReasonCode::ProtocolViolation, "memory.hwm_after_calls_kib"};
    r.detail = "the workload's peak RSS cannot be true: " + mem;
  } else if (bool_or(result.body, "interpreter_only", false)) {
    // Verified, but nothing was compiled: never mixed with compiled timings.
    r.status = Status::Warn;
    r.reason = {ReasonCode::InterpreterOnly, ""};
    r.detail = "Triton ran in its interpreter (TRITON_INTERPRET=1, no GPU): the result is verified, the timings "
               "measure a NumPy simulation and are not comparable";
  } else {
    r.status = Status::Ok;
  }
}
void warn(RunRecord& r, ReasonCode code, std::string detail) {
  r.status = Status::Warn;
  r.reason = {code, ""};
  r.detail = std::move(detail);
}

void judge_cache_used(RunRecord& r) {
  const auto& w = r.worker;
  const auto& seen = r.cache_seen;
  if (!w.cache.reported) {
    warn(r, ReasonCode::CacheUnverified, "the framework reported no cache reads for this run, so a hit cannot be shown");
    return;
  }
  const auto hits = static_cast<long long>(w.cache.hits), misses = static_cast<long long>(w.cache.misses);
  if (hits == 0)
    warn(r, ReasonCode::CacheNotUsed,
         fmt::format("the primed compile cache was not read: 0 hits, {} misses (framework counters)", misses));
  else if (misses > 0)
    warn(r, ReasonCode::CachePartiallyUsed,
         fmt::format("{} hit(s) but {} miss(es): part of the first call was compiled anew", hits, misses));
  else if (!seen.watched)
    warn(r, ReasonCode::CacheUnverified,
         fmt::format("the framework counted {} hit(s), but jitbench could not watch the cache directory ({})", hits,
                     seen.note));
  else if (seen.files_before == 0)
    warn(r, ReasonCode::CacheEvidenceConflict,
         fmt::format("the framework counted {} hit(s), but the case's cache directory held no entry when the run "
                     "started (jitbench's listing)", hits));
  else if (seen.entries_read == 0)
    warn(r, ReasonCode::CacheEvidenceConflict,
         fmt::format("the framework counted {} hit(s), but jitbench saw none of the {} cache entries read (inotify)",
                     hits, static_cast<long long>(seen.files_before)));
  else
    r.detail = fmt::format("{} hit(s), 0 misses (framework counters); jitbench saw {} of {} cache entries read (inotify)",
                           hits, static_cast<long long>(seen.entries_read), static_cast<long long>(seen.files_before));
}

// A cold run (cold_cache, warm_process) that was not cold, or "" when none of
// the signs is there.
std::string not_cold(const RunRecord& r, bool writes_cache_by_default) {
  const auto& w = r.worker;
  const auto& seen = r.cache_seen;
  const auto n = [](auto x) { return static_cast<long long>(x); };
  if (seen.files_before > 0)
    return fmt::format("the case's cache directory held {} file(s) when the cold run started", n(seen.files_before));
  // A backend that writes by default may read back what this very run wrote
  // (the directory was empty at the start); any other may neither hit nor write.
  if (!writes_cache_by_default && w.cache.reported && w.cache.hits > 0)
    return fmt::format("the framework counted {} compile-cache hit(s) in a cold run", n(w.cache.hits));
  if (!writes_cache_by_default && seen.written() > 0)
    return fmt::format("jitbench saw {} file(s) written to the case's cache directory, but this backend's default "
                       "settings write no compile cache: a persistent cache was on",
                       n(seen.written()));
  if (!w.cache_outside.empty())
    return "the framework reports a compile cache outside the case's directory: " + w.cache_outside;
  return "";
}
}  // namespace

void judge_cache_claims(RunRecord& r, CachePolicy policy, bool writes_cache_by_default) {
  if (r.status != Status::Ok || r.worker.empty()) return;
  if (policy == CachePolicy::WarmCache) {
    judge_cache_used(r);
  } else if (auto why = not_cold(r, writes_cache_by_default); !why.empty()) {
    warn(r, ReasonCode::CacheNotCold, why);
  }
}

std::string precision_mismatch(const std::string& claimed, const RunRequest& req) {
  // A GPU at the framework's default may shorten float32 products (TF32, or
  // bf16 where the user's settings ask); nothing else does.
  std::vector<std::string> allowed;
  if (req.dtype == "f64") allowed = {"fp64"};
  else if (req.gpu && req.precision == Precision::Default) allowed = {"ieee_fp32", "tf32", "bf16"};
  else allowed = {"ieee_fp32"};
  if (std::find(allowed.begin(), allowed.end(), claimed) != allowed.end()) return "";
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return fmt::format("the worker claims {} products for {} on a {} at precision '{}'; only {} can be computed there",
                     claimed, req.dtype == "f64" ? "float64" : "float32", req.gpu ? "GPU" : "CPU",
                     to_string(req.precision), list);
}

// The buckets tile the wall time: the worker's stamps lie between the spawn and
// the exit, and its buckets cover first line -> result without a gap or an overlap.
std::optional<std::string> bucket_inconsistency(const RunRecord& r) {
  if (!r.buckets) return std::nullopt;
  const auto& b = *r.buckets;
  const auto slack = timing_slack;
  if (b.interpreter_start_s < -slack(r.wall_s))
    return fmt::format("the worker stamped its first line {:.6g} s before jitbench spawned it", -b.interpreter_start_s);
  if (b.harness_exit_s < -slack(r.wall_s))
    return fmt::format("the worker stamped its result {:.6g} s after jitbench saw it exit", -b.harness_exit_s);
  if (std::abs(b.unattributed_s) > slack(b.worker_span_s))
    return fmt::format("the worker's buckets (harness import, import .. total, observe, verify, report) add up to "
                       "{:.6g} s, but {:.6g} s passed from its first line to its result ({})",
                       b.worker_span_s - b.unattributed_s, b.worker_span_s,
                       b.unattributed_s > 0 ? "a gap no bucket holds" : "buckets that overlap");
  if (!b.mismatch.empty()) return b.mismatch;
  return std::nullopt;
}

namespace {
// What the events cover outside every phase: no more than the first call's
// time outside its phases, which is part of the first call; covered at once
// by several threads, never more at once than summed over them.
template <typename Slack>
std::optional<std::string> outside_inconsistency(const RunRecord& r, Slack slack) {
  const auto& o = r.worker.anatomy_outside;
  if (!o || !r.first_call_s) return std::nullopt;
  if (o->first_call_s > *r.first_call_s + slack(*r.first_call_s))
    return fmt::format("anatomy.outside_phases.first_call_s {:.6g} s is more than the {:.6g} s first call",
                       o->first_call_s, *r.first_call_s);
  if (o->wall_s > o->first_call_s + slack(o->first_call_s))
    return fmt::format("the events outside every phase cover {:.6g} s of the first call's {:.6g} s outside them",
                       o->wall_s, o->first_call_s);
  if (o->wall_s > o->thread_s + slack(o->thread_s))
    return fmt::format("the events outside every phase cover {:.6g} s, more than their {:.6g} s of thread time",
                       o->wall_s, o->thread_s);
  return std::nullopt;
}
}  // namespace

std::optional<std::string> timing_inconsistency(const RunRecord& r) {
  // Clock granularity and the two ends of a pipe: 100 us, or 0.5% of the whole.
  const auto slack = [](double whole) { return std::max(kTimingSlackS, kTimingSlackFraction * whole); };
  if (r.first_call_s) {
    // Every number the worker reported as a phase, declared or not: a phase it
    // leaves out of phase_names is not a way around the check.
    const double phases = r.worker.all_phases_sum;
    if (phases > *r.first_call_s + slack(*r.first_call_s))
      return fmt::format("the reported phases add up to {:.6g} s, more than the {:.6g} s first call they are part of",
                         phases, *r.first_call_s);
    // The anatomy's items: children inside their parents, phases inside the first call.
    if (auto why = anatomy_inconsistency(r.worker.anatomy, *r.first_call_s, slack)) return why;
    if (auto why = anatomy_interval_inconsistency(r.worker.anatomy)) return why;
    if (auto why = outside_inconsistency(r, slack)) return why;
  }
  if (!r.import_s || !r.setup_s || !r.first_call_s || !r.total_s) return std::nullopt;
  double segments = *r.import_s + *r.setup_s + *r.first_call_s;
  for (double c : r.calls_s) segments += c;
  if (r.second_call_s) segments += *r.second_call_s;
  if (segments > *r.total_s + slack(*r.total_s))
    return fmt::format("import + setup + calls = {:.6g} s, more than the worker's own total of {:.6g} s", segments,
                       *r.total_s);
  const double inside = r.process_start_s.value_or(0.0) + *r.total_s;
  if (r.wall_s > 0 && inside > r.wall_s + slack(r.wall_s))
    return fmt::format("process start + the worker's total = {:.6g} s, more than the {:.6g} s jitbench measured "
                       "from spawn to exit",
                       inside, r.wall_s);
  return bucket_inconsistency(r);
}

RunRecord classify_run(const ProcessResult& p, const RunRequest& req) {
  RunRecord r;
  r.mode = req.mode;
  r.index = req.index;
  r.wall_s = p.wall_s;
  r.exit_kind = to_string(p.kind);
  r.exit_code = p.exit_code;
  r.signal = p.signal;
  r.max_rss_kib = p.max_rss_kib;
  if (p.pre_exec_rss_kib > 0 && p.kind != ExitKind::SpawnFailed) r.pre_exec_rss_kib = p.pre_exec_rss_kib;
  r.user_s = p.user_s;
  r.sys_s = p.sys_s;
  if (p.kind != ExitKind::SpawnFailed)
    r.interference = measure_interference(p.machine_before, p.machine_after, p.user_s + p.sys_s + p.orphan_cpu_s,
                                          p.wall_s, p.nivcsw, p.ticks_per_s);
  if (p.kind == ExitKind::SpawnFailed) {
    fail(r, ReasonCode::WorkerFailed, "could not start the worker: " + p.spawn_error);
    return r;
  }
  const auto c = read_conversation(p);
  // Times are believed only from a result that has every field its checks need.
  take_result(r, c, p, c.result && result_violation(c.result->body, req.mode, req.warm).empty());
  if (judge_exit(r, p, c, req.timeout_s)) return r;
  if (c.skip) judge_skip(r, *c.skip);
  else if (!c.hello || !c.result || !c.bye)
    fail(r, ReasonCode::WorkerFailed,
         fmt::format("incomplete conversation: no {} message", !c.hello ? "hello" : (!c.result ? "result" : "bye")));
  else judge_result(r, *c.result, req);
  return r;
}

}  // namespace jitbench
