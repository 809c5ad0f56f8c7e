#pragma once
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/format.h"
#include "results/views.h"
#include "run/case_runner.h"
#include "stats/stats.h"
#include "util/say.h"

namespace jitbench {

// What the terminal shows while a suite runs.
class Progress {
 public:
  // costs: each case's expected seconds (plan/shard.h's cost model; 0 for a case kept from before).
  Progress(bool quiet, std::vector<double> costs)
      : n_(costs.size()), quiet_(quiet), tty_(isatty(STDERR_FILENO) && !quiet), costs_(std::move(costs)) {
    const char* no_color = std::getenv("NO_COLOR");
    color_ = tty_ && !(no_color && *no_color);
  }
  // case i of N (or cases i .. i + k - 1, measured as one interleaved group: named whole, [3-4/8] 2 cases
  // interleaved: ...), what it is doing, elapsed, and the time left.
  CaseRunner::Progress for_case(std::size_t i, const Case& c) const { return for_group(i, {c}); }
  CaseRunner::Progress for_group(std::size_t i, const std::vector<Case>& cases) const {
    if (!tty_) return {};
    case_start_s_ = seconds_since_start();
    std::vector<std::string> ids;
    for (const auto& c : cases) ids.push_back(c.id);
    const std::string at = ids.size() > 1 ? fmt::format("{}-{}", i + 1, i + ids.size()) : fmt::format("{}", i + 1);
    return [this, i, at, label = group_label(ids)](const std::string& what) {
      const double elapsed = seconds_since_start();
      say(stderr, "\r\033[K[{}/{}] {}: {} · elapsed {} · ~{} left", at, n_, label, what, format_seconds(elapsed),
          format_seconds(std::max(seconds_left(i, elapsed), 1e-3)));
    };
  }
  void done(std::size_t i, const CaseResult& r) const {
    if (tty_) say(stderr, "\r\033[K");
    if (!quiet_) say(stderr, "[{}/{}] {}  {}\n", i + 1, n_, r.c.id, one_line(r));
  }

 private:
  // Status words are coloured on a terminal unless NO_COLOR is set (no-color.org).
  std::string status_word(Status s) const {
    const auto w = std::string(to_string(s));
    if (!color_) return w;
    return fmt::format("\033[{}m{}\033[0m", s == Status::Ok ? "32" : s == Status::Warn ? "33" : "31", w);
  }
  std::string one_line(const CaseResult& r) const {
    if (r.status != Status::Ok)
      return fmt::format("{}: {}{}", status_word(r.status), to_string(r.reason),
                         r.detail.empty() ? "" : " (" + r.detail + ")");
    return fmt::format("{}  cold TTFR {}  warm call {}", status_word(r.status),
                       format_seconds(stats::median(cold_values(r, "ttfr_s"))),
                       format_seconds(stats::median(warm_values(r))));
  }
  double seconds_since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  // The cost model's seconds for the cases from i on, scaled by how the cases
  // before i compared with it (before the first case ends: the model as it is),
  // less what case i has run already.
  double seconds_left(std::size_t i, double elapsed) const {
    double before = 0, from = 0;
    for (std::size_t k = 0; k < costs_.size(); ++k) (k < i ? before : from) += costs_[k];
    const double scale = before > 0 && case_start_s_ > 0 ? case_start_s_ / before : 1.0;
    return from * scale - (elapsed - case_start_s_);
  }
  std::size_t n_;
  bool quiet_, tty_, color_ = false;
  std::vector<double> costs_;
  mutable double case_start_s_ = 0;  // when the case (or group) being measured started
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace jitbench
