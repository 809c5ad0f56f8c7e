#include "results/crosscheck.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stats/stats.h"

namespace jitbench {

std::optional<Crosscheck> crosscheck(const CaseResult& c) {
  if (!c.crosscheck) return std::nullopt;
  const auto& x = *c.crosscheck;
  Crosscheck out;
  out.status = x.status;
  out.reason = x.reason;
  if (x.status != Status::Ok) return out;
  bool agrees = true;
  int compared = 0, compared_interfered = 0;
  for (const auto& r : c.cold)
    if (r.status == Status::Ok) {
      ++compared;
      if (r.interference && r.interference->interfered) ++compared_interfered;
    }
  for (const char* step : {"trace", "lower", "compile"}) {
    std::vector<double> events;
    for (const auto& r : c.cold)
      if (r.status == Status::Ok)
        if (auto v = r.worker.phase(step)) events.push_back(*v);
    const auto aot = x.worker.aot_steps.find(std::string(step) + "_s");
    if (events.empty() || aot == x.worker.aot_steps.end()) continue;
    const double ev = *stats::median(events), t = aot->second;
    // Within the bound of the median, or of any one cold run: one AOT process
    // on a shared machine may land anywhere in the spread the cold runs show.
    const auto within = [&](double e) {
      return std::abs(e - t) <= kCrosscheckAbsS || (e > 0 && t > 0 && std::max(e, t) / std::min(e, t) <= kCrosscheckFactor);
    };
    const bool ok = within(ev) || std::any_of(events.begin(), events.end(), within);
    agrees = agrees && ok;
    out.steps.push_back({step, ev, t, ok});
  }
  if (!out.steps.empty()) out.agrees = agrees;
  const bool aot_interfered = x.interference && x.interference->interfered;
  out.interfered = !agrees && (aot_interfered || (compared > 0 && compared_interfered == compared));
  return out;
}

std::optional<std::pair<Reason, std::string>> crosscheck_warning(const CaseResult& c) {
  const auto x = crosscheck(c);
  if (!x) return std::nullopt;
  if (x->status == Status::Failed)
    return std::pair{Reason{ReasonCode::CrosscheckFailed, ""},
                     fmt::format("the ahead-of-time cross-check process failed ({}: {}): the phases are unconfirmed",
                                 to_string(x->reason), c.crosscheck->detail)};
  if (x->agrees.value_or(true) || x->interfered) return std::nullopt;
  std::string steps;
  for (const auto& s : x->steps)
    if (!s.agrees)
      steps += fmt::format("{}{} {:.4g} s by the events vs {:.4g} s ahead of time", steps.empty() ? "" : "; ", s.step,
                           s.event_median_s, s.aot_s);
  return std::pair{Reason{ReasonCode::CrosscheckDisagrees, ""},
                   fmt::format("the ahead-of-time compile contradicts the event-based phases beyond the bound "
                               "(factor {:g} or {:g} ms): {}",
                               kCrosscheckFactor, kCrosscheckAbsS * 1e3, steps)};
}

}  // namespace jitbench
