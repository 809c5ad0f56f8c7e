#include "run/counting.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

#include "util/fs.h"
#include "util/json_get.h"

namespace jitbench {
namespace fs = std::filesystem;

std::string count_unsupported(const Case& c) {
  if (c.gpu)
    return "a GPU backend: valgrind runs no GPU code and a hardware counter counts the CPU's instructions only";
  if (c.worker() != WorkerKind::Python) return "a native worker: it marks no phases to count between";
  if (c.cache_policy == CachePolicy::WarmCache)
    return "warm_cache: the counting processes would run at once on the one primed cache (count cold_cache or "
           "warm_process)";
  return "";
}

std::vector<std::string> valgrind_options(const fs::path& dump_dir) {
  // Counts only (Ir), no per-instruction or per-line positions in the dumps;
  // every thread together (callgrind's default, --separate-threads=no).
  return {"--tool=callgrind", "--callgrind-out-file=" + (dump_dir / "callgrind.out.%p").string(), "--dump-instr=no",
          "--dump-line=no", "--collect-atstart=yes"};
}

std::vector<std::string> counting_argv(const CountingSetup& s, std::vector<std::string> worker,
                                       const fs::path& dump_dir) {
  worker.insert(worker.end(), {"--count-source", s.source, "--count-calls", std::to_string(s.calls)});
  std::vector<std::string> argv = s.aslr_off;
  if (s.source == kCountSourceValgrind) {
    argv.push_back(s.valgrind);
    const auto opts = valgrind_options(dump_dir);
    argv.insert(argv.end(), opts.begin(), opts.end());
  }
  argv.insert(argv.end(), worker.begin(), worker.end());
  return argv;
}

std::map<std::string, std::string> counting_env(const CountingSetup& s, bool pools_as_timed) {
  // A fixed hash seed: str and bytes hashes (sets, dict orders of some
  // libraries) would otherwise change what a process executes.
  std::map<std::string, std::string> env = {{"PYTHONHASHSEED", "0"}, {"JITBENCH_COUNT_LIB", s.library.string()}};
  if (!s.fake_pmu.empty()) env["JITBENCH_TEST_FAKE_PMU"] = s.fake_pmu;
  if (s.source == kCountSourceValgrind && !pools_as_timed)
    for (const char* k : kCountOneThread) env[k] = "1";
  // Its pools keep their threads: idle OpenMP threads wait asleep rather than spin (what is compiled is unchanged).
  if (s.source == kCountSourceValgrind && pools_as_timed) env["OMP_WAIT_POLICY"] = "PASSIVE";
  return env;
}

std::string threads_control(const std::map<std::string, std::string>& env, const std::string& source,
                            bool pools_as_timed) {
  std::vector<std::string> set, unset;
  for (const char* k : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                        "NUMBA_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "XLA_FLAGS"}) {
    const auto it = env.find(k);
    if (it == env.end() || it->second.empty()) unset.emplace_back(k);
    else set.push_back(fmt::format("{}={}", k, it->second));
  }
  std::string out = set.empty() ? "no thread setting" : fmt::format("{}", fmt::join(set, ", "));
  if (source == kCountSourceValgrind && pools_as_timed)
    out += " (as in the timed runs, under valgrind too: this backend's compiler reads the thread count, so one "
           "thread would count another compile; OMP_WAIT_POLICY=PASSIVE, so that idle OpenMP threads wait asleep, "
           "though other pools' spinning may be counted)";
  else if (source == kCountSourceValgrind)
    out += " (valgrind runs the threads one at a time: the BLAS, OpenMP and numba pools get one thread, so that "
           "no idle pool thread's spinning is counted)";
  else
    out += " (as in the timed runs)";
  if (!unset.empty()) out += fmt::format("; not set: {} (the library's default, a thread per CPU)", fmt::join(unset, ", "));
  return out;
}

CountSetup count_setup_record(const CountingSetup& s, double timeout_s, const std::map<std::string, std::string>& env,
                              bool pools_as_timed) {
  CountSetup r;
  r.source = s.source;
  r.chosen = s.chosen;
  const bool vg = s.source == kCountSourceValgrind;
  r.tool = vg ? "callgrind" : "perf_event_open";
  r.version = s.tool_version;
  if (vg) {
    r.options = {s.valgrind};
    const auto opts = valgrind_options("<dumps>");
    r.options.insert(r.options.end(), opts.begin(), opts.end());
  }
  r.controls = {{"PYTHONHASHSEED", "0"},
                {"aslr", s.aslr},
                {"threads", threads_control(env, s.source, pools_as_timed)}};
  if (!s.fake_pmu.empty()) r.controls["fake_pmu"] = "JITBENCH_TEST_FAKE_PMU: a test's fake counter, not instructions";
  r.calls = s.calls;
  r.timeout_s = timeout_s;
  r.jobs = s.jobs;
  return r;
}

namespace {
std::optional<double> count_value(std::string_view v) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
  unsigned long long n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return static_cast<double>(n);
}
}  // namespace

std::variant<CallgrindDump, std::string> parse_callgrind_header(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  CallgrindDump d;
  bool callgrind = false, ir = false, part = false;
  const std::string trigger = "desc: Trigger: ";
  while (std::getline(in, line)) {
    if (line.starts_with("# callgrind format") || line.starts_with("creator: callgrind")) callgrind = true;
    else if (line.starts_with("part: ")) {
      const auto v = count_value(std::string_view(line).substr(6));
      if (!v) return "a part number that is not a number: " + line;
      d.part = static_cast<int>(*v);
      part = true;
    } else if (line.starts_with(trigger)) {
      d.trigger = line.substr(trigger.size());
      if (d.trigger.starts_with("Client Request: ")) d.trigger = d.trigger.substr(16);
    } else if (line.starts_with("events: ")) {
      ir = line.substr(8).starts_with("Ir");
    } else if (line.starts_with("summary: ") || line.starts_with("totals: ")) {
      if (!callgrind) return "not a callgrind dump";
      if (!ir) return "a dump whose first event is not Ir (instructions)";
      const auto v = count_value(std::string_view(line).substr(line.find(' ') + 1));
      if (!v) return "a summary that is not a count: " + line;
      d.instructions = *v;
      if (!part) d.part = 0;
      return d;
    }
  }
  return "no summary line (the dump was cut short)";
}

std::variant<std::vector<CallgrindDump>, std::string> read_callgrind_dumps(const fs::path& dir) {
  std::vector<CallgrindDump> dumps;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    if (!f.path().filename().string().starts_with("callgrind.out.")) continue;
    std::string text;
    try {
      text = read_file(f.path());
    } catch (const std::exception& e) {
      return fmt::format("{}: {}", f.path().filename().string(), e.what());
    }
    auto d = parse_callgrind_header(text);
    if (auto* e = std::get_if<std::string>(&d)) return fmt::format("{}: {}", f.path().filename().string(), *e);
    dumps.push_back(std::get<CallgrindDump>(d));
  }
  if (ec) return "cannot list " + dir.string() + ": " + ec.message();
  std::sort(dumps.begin(), dumps.end(), [](const auto& a, const auto& b) { return a.part < b.part; });
  return dumps;
}

namespace {
using nlohmann::json;

// The marks every counting process makes, in this order (the first call's
// between setup and second_call: "first_call" or its stages).
std::string marks_violation(const std::vector<std::string>& marks) {
  const auto at = [&](const std::string& m) { return std::find(marks.begin(), marks.end(), m) - marks.begin(); };
  const std::vector<std::string> needed = {"harness_start", "import", "setup", "second_call", "warm_calls"};
  for (const auto& m : needed)
    if (at(m) == static_cast<long>(marks.size())) return fmt::format("the worker made no '{}' mark", m);
  for (std::size_t i = 1; i < needed.size(); ++i)
    if (at(needed[i]) < at(needed[i - 1]))
      return fmt::format("the worker marked '{}' before '{}'", needed[i], needed[i - 1]);
  bool first = false;
  for (long i = at("setup") + 1; i < at("second_call"); ++i) {
    const auto& m = marks[static_cast<std::size_t>(i)];
    if (m != "first_call" && !m.starts_with("first_call."))
      return fmt::format("a mark '{}' between setup and second_call, where only the first call's are", m);
    first = true;
  }
  if (!first) return "the worker marked no first call between setup and second_call";
  return "";
}

std::variant<std::vector<CountSegment>, std::string> valgrind_segments(const std::vector<std::string>& marks,
                                                                       const fs::path& dir) {
  auto read = read_callgrind_dumps(dir);
  if (auto* e = std::get_if<std::string>(&read)) return "callgrind's dumps could not be read: " + *e;
  std::vector<CountSegment> out;
  for (const auto& d : std::get<std::vector<CallgrindDump>>(read))
    if (d.trigger != "Program termination") out.push_back({d.trigger, d.instructions});
  std::vector<std::string> dumped;
  for (const auto& s : out) dumped.push_back(s.name);
  if (dumped != marks)
    return fmt::format("callgrind dumped {} time(s) ({}), but the worker says it marked {} ({}): the counts are not "
                       "the phases it names",
                       dumped.size(), fmt::join(dumped, ", "), marks.size(), fmt::join(marks, ", "));
  return out;
}

std::variant<std::vector<CountSegment>, std::string> hardware_segments(const std::vector<std::string>& marks,
                                                                       const json& count) {
  if (!count.contains("segments") || !count["segments"].is_array()) return "a hardware count without segments";
  std::vector<CountSegment> out;
  for (const auto& s : count["segments"]) {
    if (!s.is_array() || s.size() != 2 || !s[0].is_string() || !s[1].is_number() || !std::isfinite(s[1].get<double>()) ||
        s[1].get<double>() < 0)
      return "a hardware count's segment is not [name, instructions >= 0]";
    out.push_back({s[0].get<std::string>(), s[1].get<double>()});
  }
  std::vector<std::string> named;
  for (const auto& s : out) named.push_back(s.name);
  if (named != marks) return "the hardware count's segments are not the marks the worker names";
  return out;
}

void count_violation(RunRecord& r, const std::string& why) {
  r.status = Status::Failed;
  r.reason = {ReasonCode::ProtocolViolation, "counts"};
  r.detail = "the instruction counts cannot be taken as the phases the worker names: " + why + " (docs/protocol.md)";
}
}  // namespace

void attach_counts(RunRecord& r, const CountingSetup& s, const fs::path& dump_dir) {
  if (r.status != Status::Ok) return;
  const json count = object_or_empty(r.worker.raw, "count");
  if (string_or(count, "source", "") != s.source)
    return count_violation(r, fmt::format("asked to count with {}, the worker says it counted with '{}'", s.source,
                                          string_or(count, "source", "")));
  std::vector<std::string> marks;
  for (const auto& m : array_or_empty(count, "marks"))
    if (m.is_string()) marks.push_back(m.get<std::string>());
  if (auto why = marks_violation(marks); !why.empty()) return count_violation(r, why);
  auto segments = s.source == kCountSourceValgrind ? valgrind_segments(marks, dump_dir) : hardware_segments(marks, count);
  if (auto* e = std::get_if<std::string>(&segments)) return count_violation(r, *e);
  RunCounts c;
  c.source = s.source;
  c.segments = std::get<std::vector<CountSegment>>(std::move(segments));
  c.warm_calls = count.contains("warm_calls") && count["warm_calls"].is_number_integer() ? count["warm_calls"].get<int>() : 0;
  if (c.warm_calls != s.calls)
    return count_violation(r, fmt::format("{} warm calls were asked for, the worker says it counted {}", s.calls,
                                          c.warm_calls));
  c.first_call_split = string_or(count, "first_call_split", "");
  c.scope = s.source == kCountSourceValgrind ? "every thread of the process (callgrind, --separate-threads=no)"
                                             : string_or(count, "scope", "");
  c.fake = bool_or(count, "fake", false);
  r.counts = std::move(c);
}

}  // namespace jitbench
