#pragma once
// A case's compile anatomy (run --anatomy; docs/anatomy.md): the first call's
// phases broken down by the framework's own instrumentation, taken in
// processes of their own (mode anatomy), never in the measured cold runs.
//
// Per run the worker reports items (results/worker_report.h), each a path
// [phase, sub-phase, ...] and its time; every item lies inside its parent as
// an interval, so the children of an item never add up to more than it, and
// the phases never to more than the first call (anatomy_inconsistency: a
// worker that reports more fails inconsistent_timings). Per case: the median
// of each item over the anatomy runs (0 in a run that lacks it); kept, the
// kAnatomyLongest longest items plus any other of at least kAnatomyShare of
// its parent, at most kAnatomyMost; the rest of each parent's children summed
// as "other", and what the children leave of their parent as "unattributed".
#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/model.h"

namespace jitbench {

inline constexpr int kAnatomyLongest = 20;
inline constexpr double kAnatomyShare = 0.02;
inline constexpr int kAnatomyMost = 40;
// The anatomy runs' first-call phases agree with the measured cold runs' when
// the ratio of their medians lies within [1/kAnatomyAgreement, kAnatomyAgreement].
inline constexpr double kAnatomyAgreement = 1.5;
inline constexpr const char* kAnatomyOther = "other";
inline constexpr const char* kAnatomyUnattributed = "unattributed";

// Why one run's items cannot be true (an item without its parent, children
// whose wall times add up to more than their parent's, phases to more than
// the first call; another thread's item whose wall time exceeds its thread
// time, or children on their parent's thread group whose thread times add up
// to more than its own); slack(whole) is the tolerance the other timing
// checks allow. Like is compared with like: wall children within wall
// parents; another thread's thread time, which may exceed its parent's wall
// (several threads at once), is checked against its own thread's parent only.
std::optional<std::string> anatomy_inconsistency(const std::vector<AnatomyItem>& items, double first_call_s,
                                                 const std::function<double(double)>& slack);

// Clock granularity and the two ends of a pipe: what a worker's numbers may
// exceed the whole they are part of by (100 us, or 0.5% of the whole); the
// run's checks (run/classify.h) and the reader's (below) alike.
inline constexpr double kTimingSlackS = 100e-6;
inline constexpr double kTimingSlackFraction = 0.005;
inline double timing_slack(double whole) { return std::max(kTimingSlackS, kTimingSlackFraction * whole); }

// The nesting rule a run enforces on its anatomy (docs/anatomy.md), checked
// again wherever a recorded anatomy is read (results/read.cc): no item of a
// negative or non-finite duration, no interval that ends before it starts,
// then anatomy_inconsistency (against first_call_s when there is one) and
// anatomy_interval_inconsistency. A run that broke it was failed when measured.
std::optional<std::string> anatomy_rule_broken(const std::vector<AnatomyItem>& items,
                                               std::optional<double> first_call_s);

// The worker rounds its intervals to the nanosecond: what two intervals may
// overlap, or a child stick out of its parent, without being a contradiction.
inline constexpr double kAnatomyIntervalSlackS = 1e-6;

// Why one run's item intervals cannot be true, where the worker reported them:
// a sub-phase's interval inside no interval of its parent, two intervals of
// the same parent's sub-phases on the dispatching thread that overlap (sums
// alone miss both; another thread's item runs beside them), or another
// thread's item whose wall time exceeds what its intervals cover.
std::optional<std::string> anatomy_interval_inconsistency(const std::vector<AnatomyItem>& items);

struct AnatomyNode {
  std::vector<std::string> path;
  std::string source;  // the framework's event or timer; "" for other and unattributed
  double median_s = 0;  // wall time: what its parent waited for it
  int runs = 0;  // anatomy runs that reported it (other, unattributed: every run)
  // Another thread's item: its thread group ("" on the dispatching thread;
  // "several" when the runs disagree) and the median of its thread time,
  // summed over the group's threads (0 in a run that lacks it).
  std::string thread;
  std::optional<double> thread_median_s;
  bool operator==(const AnatomyNode&) const = default;
};

// What the anatomy's events cover of the first call outside every phase,
// medians over the anatomy runs that reported it (AnatomyOutside).
struct AnatomyOutsideSummary {
  int runs = 0;
  double events = 0, wall_s = 0, thread_s = 0, first_call_s = 0;
  bool operator==(const AnatomyOutsideSummary&) const = default;
};

struct AnatomySummary {
  int runs = 0;  // anatomy runs with items
  // Depth first, each parent's children longest first, then other, then unattributed.
  std::vector<AnatomyNode> nodes;
  int items_reported = 0;  // distinct items over every run, before the keep rule
  // Medians of the first call's phases (their sum): the anatomy runs' and the
  // measured cold runs', their ratio, and whether it lies within the bound.
  std::optional<double> anatomy_phases_s, measured_phases_s, ratio;
  std::optional<bool> agrees;  // nullopt without a ratio
  // Whether any measured (cold or warm) run reported the anatomy's
  // instrumentation or an open profiler session: true if any did; nullopt
  // (unknown) if none did and some run sent no instrumentation record; false
  // only when every run said it had neither. A worker that profiles and says
  // it did not is not caught by this (docs/anatomy.md).
  std::optional<bool> measured_runs_instrumented;
  // nullopt where no anatomy run reported it (a worker before it, numba's pass timers).
  std::optional<AnatomyOutsideSummary> outside_phases;
};

// One item of the compile anatomy between two sets of anatomy runs (BASE and
// NEW; compare/anatomy_delta.h computes them): each side's median, the change,
// the NEW/BASE ratio with its CI.
struct SubPhaseDelta {
  std::vector<std::string> path;  // [phase, sub-phase, ...]
  // Each side's median; nullopt where no process of that side reported the
  // item (new in NEW, or gone from it): never a ratio of or to nothing.
  std::optional<double> base_s, new_s;
  double change_s = 0;  // new - base (an absent side counts 0)
  std::size_t n_base = 0, n_new = 0;  // anatomy processes per side
  double base_lo = 0, base_hi = 0, new_lo = 0, new_hi = 0;  // each side's range over its processes
  // NEW/BASE ratio of medians: nullopt when a side lacks the item or its BASE median is 0.
  std::optional<double> ratio;
  // Its bootstrap 95% CI: only with a ratio and, on each side, the processes
  // compare::anatomy_ratio_ci_possible asks (6 at 95%).
  std::optional<double> lo, hi;
  std::string thread{};  // another thread's item: its thread group (NEW's, else BASE's); "" on the dispatching thread
  // Each side's value per anatomy process (0 where a process lacks the item),
  // in process order: what the share of a change and its interval are drawn from.
  std::vector<double> base_values{}, new_values{};
  bool operator==(const SubPhaseDelta&) const = default;
};

// nullopt when the case has no anatomy runs.
std::optional<AnatomySummary> anatomy_summary(const CaseResult& c);

// Whether the measured cold and warm runs carried the anatomy's instrumentation.
std::optional<bool> measured_runs_instrumented(const CaseResult& c);

}  // namespace jitbench
