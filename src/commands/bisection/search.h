#pragma once
// bisect's search between the ends, as decisions over what the steps found:
// which release is measured next, which side a step's call puts it on, and
// what moves when the boundary is not confirmed. Nothing is measured here
// (bisection.cc measures and judges); search_test.cc drives it by hand.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jitbench {

// Per case (id without its environment), one sample per process of the metric.
using StepSamples = std::map<std::string, std::vector<double>>;

// A step judged against the good end (bisection.cc, judge_step).
enum class StepCall { Bad, Good, Undecided };

// The search's state: known good releases (the good end first) and known bad
// ones (the bad end first), each growing towards the boundary between them.
struct Search {
  std::vector<std::size_t> goods, bads;
  std::vector<bool> skip;
  std::vector<std::string> skipped, overturned;
};

// The candidate halfway between lo and hi that is not left out, if any.
inline std::optional<std::size_t> middle(std::size_t lo, std::size_t hi, const std::vector<bool>& skip) {
  std::vector<std::size_t> open;
  for (std::size_t k = lo + 1; k < hi; ++k)
    if (!skip[k]) open.push_back(k);
  if (open.empty()) return std::nullopt;
  return open[(open.size() - 1) / 2];
}

inline StepSamples pooled(const StepSamples& a, const StepSamples& b) {
  StepSamples out = a;
  for (const auto& [k, v] : b) out[k].insert(out[k].end(), v.begin(), v.end());
  return out;
}

// A step's call: a bad one joins the bad side, a good one the good side; an
// undecided one (unmeasurable here: no wheel for this Python, say) is left out.
inline void take_call(Search& s, std::size_t step, StepCall call, const std::vector<std::string>& cands) {
  if (call == StepCall::Undecided) {
    s.skip[step] = true;
    s.skipped.push_back(cands[step]);
  } else {
    (call == StepCall::Bad ? s.bads : s.goods).push_back(step);
  }
}

// A boundary not confirmed: either its last good is really bad (it is moved
// to the bad side), or its first bad was bad by noise (moved to the good side:
// overturned). false when neither can move (the ends themselves).
// last_good_is_bad is asked only when the last good is not the good end.
inline bool revise(Search& s, const std::function<bool()>& last_good_is_bad, const std::vector<std::string>& cands) {
  if (s.goods.size() > 1 && last_good_is_bad()) {
    s.bads.push_back(s.goods.back());
    s.goods.pop_back();
    return true;
  }
  if (s.bads.size() == 1) return false;
  s.overturned.push_back(cands[s.bads.back()]);
  s.goods.push_back(s.bads.back());
  s.bads.pop_back();
  return true;
}

}  // namespace jitbench
