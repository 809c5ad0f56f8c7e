#include "results/model.h"

#include <fmt/format.h>

#include <cmath>

#include "results/crosscheck.h"

namespace jitbench {

std::optional<double> RunRecord::ttfr_s() const {
  if (!import_s || !setup_s || !first_call_s) return std::nullopt;
  return (ttfr_includes_import ? *import_s : 0.0) + *setup_s + *first_call_s;
}

std::optional<double> RunRecord::user_start_s() const {
  if (buckets) return buckets->interpreter_start_s;
  return process_start_s;
}

std::optional<double> RunRecord::process_ttfr_s() const {
  const auto t = ttfr_s(), start = user_start_s();
  if (!t || !start) return std::nullopt;
  return *start + *t;
}

std::optional<double> RunRecord::harness_gap_s() const {
  if (!total_s || wall_s <= 0) return std::nullopt;
  return wall_s - user_start_s().value_or(0.0) - *total_s;
}

std::optional<long> RunRecord::process_peak_rss_kib() const {
  if (pre_exec_rss_kib && max_rss_kib - *pre_exec_rss_kib <= kPreExecSlackKib) return std::nullopt;  // no overflow
  return max_rss_kib;
}

std::string RunRecord::memory_inconsistency() const {
  const auto hwm = worker.hwm_after_calls_kib;
  if (!hwm) return "";
  // The kernel counts VmHWM (kB) and ru_maxrss (KiB) apart: kPreExecSlackKib of slack either way.
  if (*hwm < 0 || !std::isfinite(*hwm)) return fmt::format("memory.hwm_after_calls_kib {:g} is not a size", *hwm);
  if (max_rss_kib > 0 && *hwm > static_cast<double>(max_rss_kib + kPreExecSlackKib))
    return fmt::format("memory.hwm_after_calls_kib {:.0f} is above the whole process's peak, {} KiB (wait4)", *hwm,
                       max_rss_kib);
  if (const auto before = worker.rss_before_first_call_kib; before && *hwm + kPreExecSlackKib < *before)
    return fmt::format("memory.hwm_after_calls_kib {:.0f} is below the {:.0f} KiB the worker held before its first "
                       "call, and a high-water mark never falls", *hwm, *before);
  return "";
}

const WorkerReport* CaseResult::first_worker_report() const {
  for (const auto& r : cold)
    if (!r.worker.empty()) return &r.worker;
  for (const auto& r : warm)
    if (!r.worker.empty()) return &r.worker;
  return nullptr;
}

InterferenceShare interference_share(const std::vector<RunRecord>& runs) {
  InterferenceShare s;
  for (const auto& r : runs) {
    ++s.runs;
    if (!r.interference) continue;
    s.add(*r.interference);
  }
  return s;
}

namespace {
// run --count: a counting process whose counts cannot be true (marks and
// dumps that disagree, a protocol lie) fails the case; one that crashed or
// timed out makes an ok case warn count_failed; one the worker could not
// count (its skip), or a case counting cannot count at all, warn
// count_unsupported with why. Never silent: what was not counted says so.
void settle_counting(CaseResult& r) {
  const auto raise = [&](Status as, Reason why, const std::string& detail) {
    if (severity(as) <= severity(r.status)) return;
    r.status = as;
    r.reason = std::move(why);
    r.detail = detail;
  };
  if (r.count && !r.count->unsupported.empty())
    raise(Status::Warn, {ReasonCode::CountUnsupported, r.count->unsupported},
          "instructions were not counted for this case: " + r.count->unsupported);
  for (const auto& run : r.counted) {
    if (run.status == Status::Warn) {
      raise(Status::Warn, {ReasonCode::CountUnsupported, to_string(run.reason)},
            "instruction-counting process: " + run.detail);
      continue;
    }
    if (run.status != Status::Failed) continue;
    const bool lie = run.reason.code == ReasonCode::InconsistentTimings || run.reason.code == ReasonCode::ProtocolViolation;
    raise(lie ? Status::Failed : Status::Warn, lie ? run.reason : Reason{ReasonCode::CountFailed, ""},
          "instruction-counting process: " + run.detail);
  }
}
}  // namespace

void settle_status(CaseResult& r) {
  r.status = Status::Ok;
  r.reason = {};
  r.detail.clear();
  std::vector<const RunRecord*> runs;
  for (const auto& x : r.cold) runs.push_back(&x);
  for (const auto& x : r.warm) runs.push_back(&x);
  for (const auto* run : runs) {
    if (severity(run->status) > severity(r.status)) {
      r.status = run->status;
      r.reason = run->reason;
      r.detail = run->detail;
    }
  }
  // An anatomy process whose numbers cannot be true (items beyond their
  // parent, a protocol lie) fails the case; one that crashed or timed out (the
  // profiler's trouble, not the measurement's) makes an ok case warn
  // anatomy_failed; one that could not run (warn: the adapter has none) is
  // recorded, no more.
  for (const auto& run : r.anatomy) {
    if (run.status != Status::Failed) continue;
    const bool lie = run.reason.code == ReasonCode::InconsistentTimings || run.reason.code == ReasonCode::ProtocolViolation;
    const Status as = lie ? Status::Failed : Status::Warn;
    if (severity(as) <= severity(r.status)) continue;
    r.status = as;
    r.reason = lie ? run.reason : Reason{ReasonCode::AnatomyFailed, ""};
    r.detail = "compile anatomy process: " + run.detail;
  }
  settle_counting(r);
  if (r.status == Status::Ok)
    if (auto w = crosscheck_warning(r)) {
      r.status = Status::Warn;
      r.reason = w->first;
      r.detail = w->second;
    }
  if (runs.empty()) {
    r.status = Status::Failed;
    r.reason = {ReasonCode::WorkerFailed, ""};
    r.detail = "no run was made";
  }
  // Stopped by a signal between two of its processes (a case measured beside
  // others stops when a neighbour's process is interrupted): not done, so
  // --resume measures it again rather than keep it short.
  if (r.sampling.cold_stopped == "interrupted" || r.sampling.warm_stopped == "interrupted") {
    r.status = Status::Failed;
    r.reason = {ReasonCode::Interrupted, ""};
    r.detail = "jitbench was interrupted before this case's processes were all run";
  }
}

bool timings_comparable(const CaseResult& c) {
  return c.status == Status::Ok ||
         (c.status == Status::Warn && (c.reason.code == ReasonCode::CrosscheckDisagrees ||
                                       c.reason.code == ReasonCode::CrosscheckFailed ||
                                       c.reason.code == ReasonCode::AnatomyFailed ||
                                       c.reason.code == ReasonCode::CountFailed ||
                                       c.reason.code == ReasonCode::CountUnsupported));
}

}  // namespace jitbench
