#pragma once
// What the runs mean together: the first call's phases and what they leave
// unattributed, the cache modes side by side with their evidence, break-even
// against the eager baseline, and between- versus within-process variance.
// Pure functions from the result model to structs; export/json/analysis_json.cc
// writes them, export/docs/summary_md.cc renders them. Depends on results/ and
// stats/ only.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "results/crosscheck.h"
#include "results/model.h"
#include "results/views.h"

namespace jitbench {

// N*, the break-even of a JIT against its eager baseline, in one unit (the
// same in summary.md, the report, analysis.json and the Python API): the
// number of calls, the first one included, after which the JIT has taken no
// more time in all than the eager function (from the TTFR and warm-call
// medians). 1: from the first call; "never": it does not.
struct BreakEven {
  // "calls": N* is `calls`; "never": the JIT never pays for itself (no faster
  // warm and no sooner to its first result; or sooner but slower warm, so the
  // eager function catches up: ahead_until_call says until which call the JIT
  // is ahead).
  std::string verdict;
  std::optional<double> calls;             // N* ("calls"): a whole number >= 1
  std::optional<double> ahead_until_call;  // "never" after a lead: the last call the JIT is still no slower in all
  std::optional<double> ci_low, ci_high;   // bootstrap 95% of N*; ci_high empty: "never" is inside the interval
  double ttfr_jit = 0, ttfr_eager = 0, warm_jit = 0, warm_eager = 0;  // medians used
};
// N* = 1 + ceil((TTFR_jit - TTFR_eager) / (warm_eager - warm_jit)) calls (1
// where the JIT is no later to its first result and no slower warm). nullopt
// when any input is empty.
std::optional<BreakEven> break_even(std::span<const double> ttfr_jit, std::span<const double> ttfr_eager,
                                    std::span<const double> warm_jit, std::span<const double> warm_eager,
                                    int resamples = 2000, std::uint64_t seed = 0x6a6974);

// N*'s meaning in one sentence, as summary.md and the report say it.
inline constexpr const char* kNStarMeaning =
    "N* (break-even) is the number of calls, the first one included, after which the JIT has taken no more time in "
    "all than its eager baseline: 1 + ⌈(TTFR_jit − TTFR_eager) / (warm_eager − warm_jit)⌉, 1 where the JIT is no "
    "later to its first result and no slower warm, never where it does not pay for itself.";
// N* in words, as every table writes it: "12" (calls, the first included), or "never".
std::string n_star_text(const BreakEven& be, double scale = 1);

// The eager baseline of a JIT case in the same run: the same framework without
// its JIT on the same device (Case::baseline: jax_eager_gpu for jax_jit_gpu,
// torch_eager_gpu for torch_compile_gpu...) when the run has an ok case of it,
// else NumPy -- same workload, n, dtype and precision, same cache policy or
// else cold_cache. `note` says why NumPy stood in; never silent.
struct Baseline {
  const CaseResult* c = nullptr;
  std::string kind;  // "same_framework" | "numpy" | "eager_self" (`jitbench measure`: the function without its JIT)
  std::string note;
};
Baseline eager_baseline(const CaseResult& jit, const std::vector<CaseResult>& all);


struct FirstCallAnalysis {
  std::optional<double> median_s;
  std::vector<std::pair<std::string, std::optional<double>>> phase_medians;  // in the framework's order
  std::map<std::string, std::string> phase_sources;
  std::optional<double> unattributed_median_s, unattributed_share_median;
  int runs_with_phases = 0;
};

struct CacheAnalysis {
  std::optional<bool> persistent;
  bool reported = false, files_watched = false;
  double hits = 0, misses = 0, entries_read = 0, entries_written = 0;
};

struct CaseAnalysis {
  const CaseResult* c = nullptr;
  std::optional<std::string> matmul_precision;
  FirstCallAnalysis first_call;
  std::optional<double> compiles_first_median, compiles_later_max;
  nlohmann::json compiled_functions;  // {name: count} of the first report, or null
  // peak_rss_max: the workload's peak (RunRecord::workload_peak_rss_kib) over
  // the ok cold runs; process_peak_rss_max: the whole process's (wait4), harness included.
  std::optional<double> rss_after_import_median, compile_rss_growth_median, peak_rss_max, process_peak_rss_max,
      device_peak_bytes;
  CacheAnalysis cache;
  std::optional<double> harness_gap_median_s;
  std::optional<Crosscheck> crosscheck;
  // How many measured processes were interfered with, per side (docs/noise.md).
  InterferenceShare cold_interference, warm_interference;
  std::optional<double> cv_ttfr, cv_second_call, cv_warm_between, cv_warm_within;
};

struct BreakEvenRow {
  const CaseResult* jit = nullptr;
  Baseline baseline;
  BreakEven be;
};

// warm_cache: what filling the cache cost, in the unmeasured priming run.
struct Priming {
  Status status = Status::Ok;
  double first_call_s = 0;
  std::optional<double> cache_write_s;        // the write phases, where the framework's are measured
  std::optional<long long> entries_written;   // inotify
};
struct CacheModeEntry {
  const CaseResult* c = nullptr;
  std::optional<double> ttfr_median_s, first_call_median_s;
  std::optional<Priming> priming;
};
// One row per backend/workload/n/dtype/precision: its cases by cache policy.
struct CacheModeRow {
  std::string key;
  std::map<CachePolicy, CacheModeEntry> by_policy;
};

struct PairVariant {
  const CaseResult* c = nullptr;
  std::optional<double> first_call_median_s, compile_median_s, warm_median_s, rss_growth_median_kib;
  nlohmann::json compiled_temp_bytes;
};
// Variants of one pair (Case::pair) side by side.
struct PairRow {
  std::string pair, backend, dtype;
  long n = 0;
  CachePolicy cache_policy = CachePolicy::ColdCache;
  Precision precision = Precision::Default;
  std::vector<PairVariant> variants;
};

// A workload that reports an accuracy (its record's `accuracy` field, e.g.
// mc_pi's |pi - estimate|) against TTFR and warm time.
struct AccuracyRow {
  const CaseResult* c = nullptr;
  nlohmann::json abs_error;
  std::optional<double> ttfr_median_s, warm_median_s;
};

// Per backend: the share of the first call no phase covers.
struct AttributionRow {
  std::string backend;
  std::size_t cases = 0;
  double share_median = 0, share_max = 0;
};

// What a warm call achieves (matmul: GFLOP/s = 2n^3 / warm median; mc_pi:
// samples/s = n / warm median), as a fraction of the no-JIT floor on the same
// device (native on the CPU, native_cuda on a GPU: same workload, n, dtype
// and precision) and, for matmul, of the machine's measured GEMM ceiling.
// A fraction above 1 means the case beat the floor. Absent figures say why.
struct ThroughputRow {
  const CaseResult* c = nullptr;
  std::string device;  // "cpu" | "gpu"
  std::string unit;    // the workload's work unit per second ("GFLOP/s", "samples/s", "steps/s")
  double warm_median_s = 0, achieved = 0;
  const CaseResult* floor = nullptr;
  std::optional<double> floor_achieved, fraction_of_floor;
  std::string floor_note;
  bool crosses_environments = false;  // merged run: the floor ran in another environment
  std::string ceiling_name;  // e.g. "cpu.sgemm_gflops"; "" when none applies
  std::optional<double> ceiling, fraction_of_ceiling;
  std::string ceiling_note;
};
// The floor backend of a device.
std::string floor_backend(const std::string& device);
std::vector<ThroughputRow> throughput_rows(const std::vector<CaseResult>& cases, const nlohmann::json& ceilings);

// A short loop of N steps in a fresh process (a workload whose record has a
// `loop`): start-up (interpreter, import, setup), the first call's compile
// phases, and execution (the rest of the first call, then ceil(N / steps per
// call) - 1 warm calls), from the medians of the case's cold and warm runs.
struct LoopCost {
  long steps = 0;
  long calls = 0;
  double total_s = 0, startup_s = 0, compile_s = 0, execute_s = 0;
  std::string dominant;  // "start-up" | "compile" | "execution"
};
struct LoopRow {
  const CaseResult* c = nullptr;
  std::string step;          // what one step is ("Adam step", "fit", ...)
  long steps_per_call = 1;
  double startup_s = 0;      // process start + import + setup (medians)
  double compile_s = 0;      // the first call's phases (median of their sums; 0 for an eager backend)
  double first_call_s = 0;
  double warm_call_s = 0;    // a warm call (steps_per_call steps)
  std::vector<LoopCost> costs;  // 10, 100, 1000 steps
};
std::vector<LoopRow> loop_rows(const std::vector<CaseResult>& cases);

struct Analysis {
  std::vector<CaseAnalysis> cases;
  std::vector<LoopRow> loops;
  std::vector<ThroughputRow> throughput;
  std::vector<BreakEvenRow> break_even;
  std::vector<CacheModeRow> cache_modes;
  std::vector<PairRow> pairs;
  std::vector<AccuracyRow> accuracy;
  std::vector<AttributionRow> attribution;
};

// cases must outlive the result (it points into them). `ceilings`: the
// environment manifest's "ceilings" (null when it has none).
Analysis analyze(const std::vector<CaseResult>& cases, const nlohmann::json& ceilings = nullptr);
CaseAnalysis analyze_case(const CaseResult& c);

}  // namespace jitbench
