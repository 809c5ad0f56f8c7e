#pragma once
// Small pieces every JSON emitter in export/ shares.
#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>

namespace jitbench {
// A number, or JSON null when absent; the median of xs the same way.
nlohmann::json number_or_null(const std::optional<double>& v);
nlohmann::json median_or_null(std::span<const double> xs);
nlohmann::json text_or_null(const std::string& s);
// {n, min, median, p95, max, mean, stdev, cv, mad, median_ci95:[lo,hi], n_outliers} or null.
nlohmann::json summary_json(std::span<const double> xs);
// The file text jitbench writes for a JSON document (pretty, trailing newline).
std::string json_text(const nlohmann::json& j);
}  // namespace jitbench
