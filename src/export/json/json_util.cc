#include "export/json/json_util.h"

#include "stats/stats.h"
#include "util/json_parse.h"

namespace jitbench {
using nlohmann::json;

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json median_or_null(std::span<const double> xs) { return number_or_null(stats::median(xs)); }
json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json summary_json(std::span<const double> xs) {
  auto s = stats::summarize(xs);
  if (!s) return nullptr;
  return {{"n", s->n},
          {"min", s->min},
          {"median", s->median},
          {"p95", s->p95},
          {"max", s->max},
          {"mean", s->mean},
          {"stdev", number_or_null(s->stdev)},
          {"cv", number_or_null(s->cv)},
          {"mad", s->mad},
          {"median_ci95", {s->median_ci95.low, s->median_ci95.high}},
          {"n_outliers", s->n_outliers}};
}

std::string json_text(const json& j) { return dump_json(j, 2) + "\n"; }

}  // namespace jitbench
