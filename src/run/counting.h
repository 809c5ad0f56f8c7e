#pragma once
// Instructions counted per phase (run --count instructions; docs/noise.md,
// "Instructions"): after a case's timed processes, processes of their own
// (mode count) run the same worker under callgrind, or with the hardware
// instruction counter, and mark the boundaries between their phases; what lies
// between two marks is that phase's count. Here: how such a process is
// started (the tool's command line, the determinism controls), and what it
// counted, read from callgrind's dumps (valgrind) or the worker's own report
// (hardware), checked against the marks the worker says it made.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "plan/plan.h"
#include "results/model.h"
#include "run/subprocess.h"

namespace jitbench {

inline constexpr const char* kCountSourceValgrind = "valgrind";
inline constexpr const char* kCountSourceHardware = "hardware";
// Counting processes per case by default, and at least: one process has no spread.
inline constexpr int kDefaultCountRuns = 2;
inline constexpr int kMinCountRuns = 2;
// Warm calls counted in each counting process at most (their count per call is
// reported); fewer where the run asks for fewer warm calls (count_calls).
inline constexpr int kCountCalls = 10;
// How much longer a process runs under callgrind than alone (the issue that
// introduced counting measured ~30x on a 2-core machine; the timeout allows more).
inline constexpr double kValgrindSlowdown = 50;

// How a run counts (resolved once when it starts: env/counting_tools.h).
struct CountingSetup {
  bool enabled = false;
  std::string source;          // kCountSourceValgrind or kCountSourceHardware
  std::string chosen;          // why this source: "automatic: ...", "asked for (--count instructions:valgrind)"
  int runs = kDefaultCountRuns;
  int jobs = 1;                // counting processes at a time (their counts do not depend on the load)
  int calls = kCountCalls;
  std::filesystem::path library;  // libjitbench-count (native/count.cc), handed to the worker
  std::string valgrind;        // the valgrind executable
  std::string tool_version;    // "valgrind-3.19.0"; hardware: "perf_event_open (Linux <release>)"
  std::vector<std::string> aslr_off;  // the command that turns address randomisation off ("setarch x86_64 -R"), or {}
  std::string aslr;            // what was done about it, said in the case file
  std::string fake_pmu;        // JITBENCH_TEST_FAKE_PMU, passed on (jitbench's own tests), or ""
};

// Why counting cannot be done for this case ("" when it can): a GPU's work,
// a native worker without marks, a cache policy counting does not support.
std::string count_unsupported(const Case& c);

// The options valgrind is started with (before the worker's command line),
// dumps written into dump_dir.
std::vector<std::string> valgrind_options(const std::filesystem::path& dump_dir);

// The counting process's command line: the worker's, wrapped in the tool
// (and the ASLR control); and the variables it gets beyond the timed runs'.
std::vector<std::string> counting_argv(const CountingSetup& s, std::vector<std::string> worker,
                                       const std::filesystem::path& dump_dir);
// `pools_as_timed`: the case's backend compiles what the thread count says
// (its catalog record's compile_reads_threads): its pools stay as timed, so
// that what is counted is the compile that was timed.
std::map<std::string, std::string> counting_env(const CountingSetup& s, bool pools_as_timed = false);

// The thread pools a counting process under valgrind runs with one thread
// (counting_env). Valgrind runs a process's threads one at a time, so a pool
// buys no speed there, while its idle threads spin and callgrind counts their
// spinning: the counts would depend on the scheduling, and the process's
// serialised time goes to the spinning (docs/noise.md, "Thread pools spin").
// XLA's and TensorFlow's own pools are not set: their settings change what
// is compiled; they stay as in the timed runs. Nor are these for a backend
// whose compiler reads them (torch.compile's inductor writes the OpenMP thread
// count into its kernels): the catalog's compile_reads_threads; their idle
// OpenMP threads are told to wait asleep (OMP_WAIT_POLICY=PASSIVE) instead.
inline constexpr const char* kCountOneThread[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                                  "BLIS_NUM_THREADS", "NUMBA_NUM_THREADS"};

// The "threads" control of the case file: what the counting processes ran
// with, read from their whole environment (`env`: the inherited one with the
// worker's and the counting process's changes applied).
std::string threads_control(const std::map<std::string, std::string>& env, const std::string& source,
                            bool pools_as_timed = false);

// What the case file records of the setup (the tool, its version and
// options, the controls), shared by the case's counting processes; `env`:
// their whole environment (threads_control).
CountSetup count_setup_record(const CountingSetup& s, double timeout_s, const std::map<std::string, std::string>& env,
                              bool pools_as_timed = false);

// One callgrind dump (a file of --callgrind-out-file's pattern): which part
// of the process it is, what triggered it (a client request's name, or
// "Program termination"), and the instructions since the previous dump.
struct CallgrindDump {
  int part = 0;
  std::string trigger;
  double instructions = 0;
};
// Its header, read up to `summary:` (the per-function costs after it are not
// read). nullopt with the reason when the text is not a callgrind dump of Ir.
std::variant<CallgrindDump, std::string> parse_callgrind_header(const std::string& text);
// Every dump in dir, in the order of their parts.
std::variant<std::vector<CallgrindDump>, std::string> read_callgrind_dumps(const std::filesystem::path& dir);

// The counts of an ok counting process, taken from the dumps (valgrind) or
// the worker's report (hardware) and checked against the marks the worker
// says it made (the same names, in the same order, every mark jitbench needs);
// a run whose counts cannot be taken fails protocol_violation.
void attach_counts(RunRecord& r, const CountingSetup& s, const std::filesystem::path& dump_dir);

}  // namespace jitbench
