#pragma once
// The worker protocol (docs/protocol.md): newline-delimited JSON objects written
// by the worker on an inherited file descriptor. This file only parses and
// checks messages; it does not decide what a run's outcome is.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/names.h"

namespace jitbench {

inline constexpr int kProtocolVersion = 1;

// The marks a result's `harness` stamps between its buckets (docs/protocol.md),
// in order: started .. measured_start (harness import), .. measured_end (total_s),
// .. observed, .. verified, .. sent (report).
inline constexpr const char* kHarnessMarks[] = {"measured_start", "measured_end", "observed", "verified"};

enum class MessageType { Hello, Result, Skip, Error, Probe, Ceilings, Environment, Versions, Hashes, Bye };

struct Message {
  MessageType type;
  nlohmann::json body;
};

// One line -> a checked message, or a one-line description of what is wrong.
std::variant<Message, std::string> parse_message(std::string_view line);

// The warm calls asked of a worker: exactly `max`, or from `min` to `max`,
// ending before `max` only once their 99% interval is within +-target_pct %
// of their median (--target-ci, stats/sequential.h) or once they add up to
// min_time_s (calibrated by time where no count is fixed): jitbench checks
// that on the calls reported, never on the worker's word.
struct WarmCallsAsked {
  int max = 0;
  int min = 0;
  std::optional<double> target_pct;
  std::optional<double> min_time_s;
};

// The fields of a result message that jitbench's checks need, for the run it
// asked for: the times of that mode (warm: the calls asked for), both
// verifications, the first call's phases (declared once each in phase_names,
// every one a number >= 0), the sync check and the precision claimed. "" when
// all are there, else what is wrong in a few words ("missing total_s"): a
// protocol violation, never a check skipped for want of its field.
std::string result_violation(const nlohmann::json& result, RunMode mode, const WarmCallsAsked& warm = {});

// Splits a byte stream into lines. A line longer than max_line is an error
// (a worker flooding the channel), reported once and then discarded.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line = 16 << 20) : max_line_(max_line) {}
  void feed(std::string_view bytes);
  // Complete lines seen so far (the partial tail stays buffered).
  std::vector<std::string> take_lines();
  // Bytes left without a trailing newline when the stream ended.
  const std::string& pending() const { return buf_; }
  bool overflowed() const { return overflowed_; }

 private:
  std::size_t max_line_;
  std::string buf_;
  std::vector<std::string> lines_;
  bool overflowed_ = false;
  bool discarding_ = false;
};

}  // namespace jitbench
