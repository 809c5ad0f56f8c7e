#include "compare/anatomy_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "compare/anatomy_delta.h"
#include "stats/stats.h"

namespace jitbench::compare {
namespace {
constexpr int kShareResamples = 2000;
constexpr std::uint64_t kShareSeed = 0x736861;  // fixed: the same runs always give the same line

bool below(const SubPhaseDelta& d, const SubPhaseDelta& at) {
  return d.path.size() > at.path.size() && std::equal(at.path.begin(), at.path.end(), d.path.begin());
}
bool child_of(const SubPhaseDelta& d, const SubPhaseDelta& at) { return d.path.size() == at.path.size() + 1 && below(d, at); }
bool both_sides(const SubPhaseDelta& d) { return d.base_s && d.new_s; }
// Whether d moved the way `whole` did (a NaN change never does).
bool moved_with(const SubPhaseDelta& d, const SubPhaseDelta& whole) { return d.change_s * whole.change_s > 0; }

// Whether every item and `whole` carry one value per process of each side, as many as an interval needs.
bool can_resample(const std::vector<const SubPhaseDelta*>& items, const SubPhaseDelta& whole) {
  if (!anatomy_ratio_ci_possible(whole.n_base, whole.n_new) || whole.base_values.size() != whole.n_base ||
      whole.new_values.size() != whole.n_new)
    return false;
  return std::all_of(items.begin(), items.end(), [&](const SubPhaseDelta* d) {
    return d->base_values.size() == whole.n_base && d->new_values.size() == whole.n_new;
  });
}

double resampled_median(const std::vector<double>& xs, const std::vector<std::size_t>& picks, std::vector<double>& buf) {
  buf.clear();
  for (auto i : picks) buf.push_back(xs[i]);
  return stats::median(buf).value_or(0.0);
}

// One bootstrap resample's share: NEW's and BASE's processes drawn again, every item read from the same draws.
double resampled_share(const std::vector<const SubPhaseDelta*>& items, const SubPhaseDelta& whole,
                       const std::vector<std::size_t>& a, const std::vector<std::size_t>& b, std::vector<double>& buf) {
  const double whole_change =
      resampled_median(whole.new_values, b, buf) - resampled_median(whole.base_values, a, buf);
  if (!(whole_change * whole.change_s > 0)) return 0.0;  // the whole did not move that way: no share of it
  double sum = 0;
  for (const auto* d : items) sum += resampled_median(d->new_values, b, buf) - resampled_median(d->base_values, a, buf);
  return sum / whole_change;
}

bool holds_half(const ChangeShare& s) { return (s.lo ? *s.lo : s.share) >= 0.5; }

// The children of `at` that moved the way `whole` did and may be named: measured on both sides, or
// (`one_sided`) on one side only, unless a one-sided sibling moved the other way (a renamed event's two names).
std::vector<const SubPhaseDelta*> candidates(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& at,
                                             const SubPhaseDelta& whole, bool one_sided) {
  const bool renamed = std::any_of(ds.begin(), ds.end(), [&](const SubPhaseDelta& d) {
    return child_of(d, at) && !both_sides(d) && d.change_s * whole.change_s < 0;
  });
  std::vector<const SubPhaseDelta*> out;
  for (const auto& d : ds)
    if (child_of(d, at) && moved_with(d, whole) && (both_sides(d) || (one_sided && !renamed))) out.push_back(&d);
  std::stable_sort(out.begin(), out.end(),
                   [](auto* x, auto* y) { return std::abs(x->change_s) > std::abs(y->change_s); });
  return out;
}

// The child of `at` that holds half of `whole`'s change on its own (the largest such), if any.
std::optional<NamedItem> alone_below(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& at,
                                     const SubPhaseDelta& whole, bool one_sided) {
  for (const auto* c : candidates(ds, at, whole, one_sided))
    if (const auto s = share_of_change({c}, whole); holds_half(s)) return NamedItem{c, {}, s};
  return std::nullopt;
}

// A group member followed down: while one child (measured on the sides the member was) holds half of its change.
NamedItem followed_down(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta* member, const SubPhaseDelta& phase) {
  NamedItem out{member, {member}, share_of_change({member}, phase)};
  const SubPhaseDelta* at = member;
  while (const auto next = alone_below(ds, *at, *at, !both_sides(*member))) {
    if (both_sides(*next->item) != both_sides(*member)) break;
    at = next->item;
    out.via.push_back(at);
  }
  out.item = at;
  return out;
}

// Whether the smaller share cannot be told from the larger: its interval reaches the larger's.
bool indistinct(const ChangeShare& larger, const ChangeShare& smaller) {
  return larger.lo && smaller.hi && *smaller.hi >= *larger.lo;
}

// The two or three children of `at` that hold half of the phase's change together, if any: the fewest
// that do, and the third too where its share cannot be told from the second's (the noise would pick
// either of them).
void together_below(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& at, AnatomyVerdict& v) {
  const auto kids = candidates(ds, at, *v.phase, true);
  for (std::size_t k = 2; k <= 3 && k <= kids.size(); ++k) {
    std::vector<const SubPhaseDelta*> group(kids.begin(), kids.begin() + static_cast<long>(k));
    if (!holds_half(share_of_change(group, *v.phase))) continue;
    if (k == 2 && kids.size() > 2 &&
        indistinct(share_of_change({kids[1]}, *v.phase), share_of_change({kids[2]}, *v.phase)))
      group.push_back(kids[2]);
    for (const auto* m : group) v.together.push_back(followed_down(ds, m, *v.phase));
    v.together_share = share_of_change(group, *v.phase);
    return;
  }
}

// The largest move below the phase the same way, among the items measured on both sides where there are any.
std::optional<NamedItem> largest_below(const std::vector<SubPhaseDelta>& ds, const SubPhaseDelta& phase, bool any_two) {
  const SubPhaseDelta* best = nullptr;
  for (const auto& d : ds)
    if (below(d, phase) && (both_sides(d) || !any_two) && moved_with(d, phase) &&
        (!best || std::abs(d.change_s) > std::abs(best->change_s)))
      best = &d;
  if (!best) return std::nullopt;
  return NamedItem{best, {}, share_of_change({best}, phase)};
}
}  // namespace

ChangeShare share_of_change(const std::vector<const SubPhaseDelta*>& items, const SubPhaseDelta& whole) {
  ChangeShare out;
  double sum = 0;
  for (const auto* d : items) sum += d->change_s;
  out.share = whole.change_s != 0 && std::isfinite(whole.change_s) ? sum / whole.change_s : 0.0;
  if (!can_resample(items, whole)) return out;
  std::mt19937_64 rng(kShareSeed);
  std::uniform_int_distribution<std::size_t> pa(0, whole.n_base - 1), pb(0, whole.n_new - 1);
  std::vector<std::size_t> a(whole.n_base), b(whole.n_new);
  std::vector<double> shares, buf;
  shares.reserve(kShareResamples);
  for (int k = 0; k < kShareResamples; ++k) {
    for (auto& i : a) i = pa(rng);
    for (auto& i : b) i = pb(rng);
    shares.push_back(resampled_share(items, whole, a, b, buf));
  }
  out.lo = stats::percentile(shares, 2.5);
  out.hi = stats::percentile(shares, 97.5);
  return out;
}

AnatomyVerdict anatomy_verdict(const std::vector<SubPhaseDelta>& ds) {
  AnatomyVerdict v;
  if (ds.empty()) return v;
  v.phase = &ds.front();
  for (const auto& d : ds)
    if (d.path.size() == 1) {
      v.phase = &d;
      break;
    }
  v.intervals = can_resample({}, *v.phase);
  if (!(v.phase->change_s * v.phase->change_s > 0)) return v;  // no change, or NaN: nothing to place
  const bool any_two = std::any_of(ds.begin(), ds.end(), [&](const SubPhaseDelta& d) {
    return below(d, *v.phase) && both_sides(d);
  });
  const SubPhaseDelta* at = v.phase;
  while (const auto next = alone_below(ds, *at, *v.phase, !any_two)) {
    v.alone.push_back(*next);
    at = next->item;
  }
  together_below(ds, *at, v);
  if (!v.alone.empty() || !v.together.empty()) return v;
  v.largest = largest_below(ds, *v.phase, any_two);
  // Only one-sided items below the phase, the largest of them (at any depth) holding half of its change: the answer.
  if (v.largest && !both_sides(*v.largest->item) && holds_half(v.largest->share)) {
    v.alone.push_back(*v.largest);
    v.largest.reset();
  }
  return v;
}

}  // namespace jitbench::compare
