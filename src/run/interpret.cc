#include "run/interpret.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>

#include "run/protocol.h"

namespace jitbench {
namespace {

std::optional<double> num(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

void fail(RunRecord& r, std::string reason, std::string detail) {
  r.status = Status::Failed;
  r.reason = std::move(reason);
  r.detail = std::move(detail);
}

bool verified(const nlohmann::json& v) { return v.is_object() && v.value("ok", false) == true; }
std::string verify_message(const nlohmann::json& v) {
  return v.is_object() && v.contains("message") && v["message"].is_string() ? v["message"].get<std::string>()
                                                                             : "result differs from the float64 reference";
}

}  // namespace

std::optional<std::string> timing_inconsistency(const RunRecord& r) {
  // Clock granularity and the two ends of a pipe: 100 us, or 0.5% of the whole.
  const auto slack = [](double whole) { return std::max(kTimingSlackS, kTimingSlackFraction * whole); };
  if (r.first_call_s) {
    double phases = 0;
    const auto ptr = nlohmann::json::json_pointer("/first_call/phases");
    if (r.worker.contains(ptr) && r.worker.at(ptr).is_object())
      for (const auto& [name, v] : r.worker.at(ptr).items())
        if (v.is_number()) phases += v.get<double>();
    if (phases > *r.first_call_s + slack(*r.first_call_s))
      return fmt::format("the reported phases add up to {:.6g} s, more than the {:.6g} s first call they are part of",
                         phases, *r.first_call_s);
  }
  if (r.import_s && r.setup_s && r.first_call_s && r.total_s) {
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
  }
  return std::nullopt;
}

RunRecord interpret_run(const ProcessResult& p, const std::string& mode, int index, double timeout_s) {
  RunRecord r;
  r.mode = mode;
  r.index = index;
  r.wall_s = p.wall_s;
  r.exit_kind = to_string(p.kind);
  r.exit_code = p.exit_code;
  r.signal = p.signal;
  r.max_rss_kib = p.max_rss_kib;
  r.user_s = p.user_s;
  r.sys_s = p.sys_s;

  if (p.kind == ExitKind::SpawnFailed) {
    fail(r, "worker_failed", "could not start the worker: " + p.spawn_error);
    return r;
  }

  std::optional<Message> hello, result, skip, error;
  bool bye = false;
  std::string protocol_error;
  for (const auto& line : p.lines) {
    auto m = parse_message(line);
    if (auto* e = std::get_if<std::string>(&m)) {
      if (protocol_error.empty()) protocol_error = *e;
      continue;
    }
    auto& msg = std::get<Message>(m);
    switch (msg.type) {
      case MessageType::Hello: hello = msg; break;
      case MessageType::Result: result = msg; break;
      case MessageType::Skip: skip = msg; break;
      case MessageType::Error: error = msg; break;
      case MessageType::Probe: break;
      case MessageType::Bye: bye = true; break;
    }
  }
  if (p.channel_overflow && protocol_error.empty()) protocol_error = "a message exceeded the size limit";
  if (!p.trailing.empty() && protocol_error.empty()) protocol_error = "the last message has no newline";

  if (hello && p.spawn_ns > 0) {
    const double dt = static_cast<double>(hello->body["monotonic_ns"].get<long long>() - p.spawn_ns) / 1e9;
    if (dt >= 0) r.process_start_s = dt;
  }
  if (result) {
    const auto& b = result->body;
    r.import_s = num(b, "import_s");
    r.setup_s = num(b, "setup_s");
    r.first_call_s = num(b, "first_call_s");
    r.second_call_s = num(b, "second_call_s");
    r.total_s = num(b, "total_s");
    if (b.contains("calls_s")) r.calls_s = b["calls_s"].get<std::vector<double>>();
    if (b.contains("ttfr_includes_import") && b["ttfr_includes_import"].is_boolean())
      r.ttfr_includes_import = b["ttfr_includes_import"].get<bool>();
    for (const char* k : {"backend", "device", "verify", "verify_first", "cache", "workload", "env", "cache_policy",
                          "first_call", "compiles", "cache_events", "cache_events_later", "cache_files", "sync",
                          "precision", "memory", "aot"})
      if (b.contains(k)) r.worker[k] = b[k];
  }
  if (skip && skip->body.contains("backend")) r.worker["backend"] = skip->body["backend"];

  if (p.interrupted) {
    fail(r, "interrupted", "jitbench was interrupted while this run was in flight");
  } else if (p.kind == ExitKind::TimedOut) {
    fail(r, "timeout", fmt::format("killed after the {:g} s timeout (raise it with --timeout)", timeout_s));
  } else if (p.kind == ExitKind::Signaled) {
    fail(r, "worker_failed", fmt::format("killed by signal {} ({})", p.signal, strsignal(p.signal)));
  } else if (error) {
    fail(r, "worker_failed",
         fmt::format("{}: {}", error->body["reason"].get<std::string>(), error->body["message"].get<std::string>()));
  } else if (p.exit_code != 0) {
    fail(r, "worker_failed", fmt::format("exited with code {}", p.exit_code));
  } else if (!protocol_error.empty()) {
    fail(r, "worker_failed", "malformed message: " + protocol_error);
  } else if (skip) {
    r.status = Status::Warn;
    r.reason = skip->body["reason"].get<std::string>();
    r.detail = skip->body.value("detail", "");
  } else if (!hello || !result || !bye) {
    fail(r, "worker_failed",
         fmt::format("incomplete conversation: no {} message", !hello ? "hello" : (!result ? "result" : "bye")));
  } else if (result->body["mode"] != mode) {
    fail(r, "worker_failed", fmt::format("asked for a {} run, got a {} result", mode, result->body["mode"].dump()));
  } else if (result->body.contains("verify_first") && !verified(result->body["verify_first"])) {
    fail(r, "incorrect_result", "the first (compiling) call's result: " + verify_message(result->body["verify_first"]));
  } else if (!verified(result->body["verify"])) {
    fail(r, "incorrect_result", verify_message(result->body["verify"]));
  } else if (const auto ptr = nlohmann::json::json_pointer("/sync/pending_after_last_call");
             result->body.contains(ptr) && result->body.at(ptr) == true) {
    fail(r, "unsynchronized",
         "the device still had work queued when the clock stopped: the timings do not cover the computation");
  } else if (auto why = timing_inconsistency(r)) {
    fail(r, "inconsistent_timings", *why);
  } else if (result->body.value("interpreter_only", false)) {
    // Verified, but nothing was compiled: never mixed with compiled timings.
    r.status = Status::Warn;
    r.reason = "interpreter_only";
    r.detail = "Triton ran in its interpreter (TRITON_INTERPRET=1, no GPU): the result is verified, the timings "
               "measure a NumPy simulation and are not comparable";
  } else {
    r.status = Status::Ok;
  }
  return r;
}

}  // namespace jitbench
