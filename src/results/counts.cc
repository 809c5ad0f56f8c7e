#include "results/counts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "stats/stats.h"

namespace jitbench {

std::vector<std::pair<std::string, double>> count_phases(const RunCounts& c) {
  std::vector<std::pair<std::string, double>> out;
  std::map<std::string, double> by;
  std::vector<std::string> stages;  // first_call.<stage>, in the order first met
  bool first_call = false;
  for (const auto& s : c.segments) {
    by[s.name] += s.instructions;
    if (s.name == "first_call" || s.name.starts_with("first_call.")) {
      first_call = true;
      by["first_call (all)"] += s.instructions;
      if (s.name != "first_call" && std::find(stages.begin(), stages.end(), s.name) == stages.end())
        stages.push_back(s.name);
    }
  }
  const auto add = [&](const std::string& name, const std::string& key) {
    if (const auto it = by.find(key); it != by.end()) out.emplace_back(name, it->second);
  };
  add("import", "import");
  add("setup", "setup");
  if (first_call) add("first_call", "first_call (all)");
  for (const auto& st : stages) add(st, st);
  if (by.count("import") && by.count("setup") && first_call)
    out.emplace_back("ttfr", by["import"] + by["setup"] + by["first_call (all)"]);
  add("second_call", "second_call");
  if (const auto it = by.find("warm_calls"); it != by.end() && c.warm_calls > 0)
    out.emplace_back("warm_call", it->second / c.warm_calls);
  return out;
}

std::map<std::string, std::vector<double>> count_samples(const CaseResult& c) {
  std::map<std::string, std::vector<double>> out;
  for (const auto& r : c.counted) {
    if (r.status != Status::Ok || !r.counts) continue;
    for (const auto& [phase, v] : count_phases(*r.counts)) out[phase].push_back(v);
  }
  return out;
}

std::vector<CountPhaseSummary> count_summary(const CaseResult& c) {
  std::vector<std::string> order;
  for (const auto& r : c.counted)
    if (r.status == Status::Ok && r.counts)
      for (const auto& [phase, v] : count_phases(*r.counts))
        if (std::find(order.begin(), order.end(), phase) == order.end()) order.push_back(phase);
  const auto samples = count_samples(c);
  std::vector<CountPhaseSummary> out;
  for (const auto& phase : order) {
    const auto& xs = samples.at(phase);
    CountPhaseSummary s{phase, xs.size(), *stats::median(xs), *stats::min(xs), *stats::max(xs), std::nullopt};
    if (xs.size() > 1 && s.median > 0) s.spread_pct = (s.max - s.min) / s.median * 100.0;
    out.push_back(s);
  }
  return out;
}

std::string count_source(const CaseResult& c) {
  std::string source;
  for (const auto& r : c.counted) {
    if (r.status != Status::Ok || !r.counts) continue;
    if (!source.empty() && source != r.counts->source) return "";
    source = r.counts->source;
  }
  return source;
}

namespace {
// What a control means, without the sentence around it (which a later jitbench
// may word differently): aslr's "off" / "on" (the word before its colon), the
// thread settings the processes ran with (threads' text before its first
// " (": "OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1" or "no thread setting"),
// any other control as it is.
std::string control_meaning(const std::string& name, const std::string& text) {
  if (name == "aslr") return text.substr(0, text.find(':'));
  if (name == "threads") return text.substr(0, text.find(" ("));
  return text;
}
}  // namespace

CountsUnlike counts_unlike(const CaseResult& a, const CaseResult& b) {
  CountsUnlike out;
  const auto sa = count_source(a), sb = count_source(b);
  if (sa.empty() || sb.empty()) return out;
  if (sa != sb) {
    out.all = fmt::format("BASE counted them with {}, NEW with {} (count both alike: --count instructions:{})", sa,
                          sb, sa);
    return out;
  }
  if (!a.count || !b.count) return out;  // a case file that did not record its setup: nothing to hold against
  std::map<std::string, std::pair<std::string, std::string>> controls;  // name -> (BASE, NEW) meanings
  for (const auto& [name, v] : a.count->controls) controls[name].first = control_meaning(name, v);
  for (const auto& [name, v] : b.count->controls) controls[name].second = control_meaning(name, v);
  for (const auto& [name, v] : controls) {
    if (v.first == v.second) continue;
    out.all = fmt::format("the counting processes' {} control differs: BASE \"{}\", NEW \"{}\" (count both with "
                          "the same settings)",
                          name, v.first.empty() ? "not recorded" : v.first, v.second.empty() ? "not recorded" : v.second);
    return out;
  }
  if (a.count->calls != b.count->calls)
    out.warm_call = fmt::format("BASE counted {} warm calls per process, NEW {} (the per-call figure moves with "
                                "the number of calls: give both runs the same --warm-iters, or 10 and more)",
                                a.count->calls, b.count->calls);
  return out;
}

}  // namespace jitbench
