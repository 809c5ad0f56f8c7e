#include "export/docs/case_names.h"

#include <fmt/format.h>

#include "report/format.h"

namespace jitbench {
namespace {
const MeasuredFunction* measured_of(const Case& c) {
  return c.workload_info && c.workload_info->measured ? &*c.workload_info->measured : nullptr;
}

// What a measured function's backend runs, as its shim named it (the backend where it did not).
std::string runs_md(const Case& c, const MeasuredFunction& m) {
  const auto it = m.labels.find(c.backend);
  const std::string label = it == m.labels.end() ? c.backend : it->second;
  const auto fn = label.find(m.function);
  if (fn != 0) return md_cell(label);  // the label names the function first: it is shown as code
  return md_code(m.function) + md_cell(label.substr(m.function.size()));
}

// Beside a measured function's label: the environment, cache policy and precision that tell its cases apart.
std::string qualifiers(const Case& c) {
  std::string q;
  const auto add = [&](const std::string& s) { q += (q.empty() ? "" : ", ") + s; };
  if (!c.env.empty()) add(c.env);
  if (c.cache_policy != CachePolicy::ColdCache) add(std::string(to_string(c.cache_policy)));
  if (c.precision != Precision::Default) add(std::string(to_string(c.precision)) + " precision");
  return q;
}
}  // namespace

std::string case_name_md(const Case& c) {
  const auto* m = measured_of(c);
  if (!m) return md_code(c.id);
  const auto q = qualifiers(c);
  return runs_md(c, *m) + (q.empty() ? "" : " (" + md_cell(q) + ")");
}

std::string case_row_md(const Case& c) {
  const auto* m = measured_of(c);
  if (m) {
    const auto q = qualifiers(c);
    return runs_md(c, *m) + (q.empty() ? "" : ", " + md_cell(q));
  }
  const auto work = fmt::format("_{}_{}_{}", c.workload, c.n, c.dtype);
  const auto at = c.id.find(work);
  return md_code(at == std::string::npos ? c.id : c.id.substr(0, at) + c.id.substr(at + work.size()));
}

std::string work_title_md(const Case& c) {
  if (const auto* m = measured_of(c)) return fmt::format("function {} from {}", md_code(m->function), md_cell(m->source));
  return md_code(fmt::format("{}_{}_{}", c.workload, c.n, c.dtype));
}

std::string case_name_text(const Case& c) {
  const auto* m = measured_of(c);
  if (!m) return c.id;
  const auto q = qualifiers(c);
  return backend_text(c) + (q.empty() ? "" : " (" + q + ")");
}

std::string work_title_text(const Case& c) {
  if (const auto* m = measured_of(c)) return fmt::format("function {} from {}", m->function, m->source);
  return fmt::format("{}_{}_{}", c.workload, c.n, c.dtype);
}

std::string backend_text(const Case& c) {
  const auto* m = measured_of(c);
  if (!m) return c.backend;
  const auto it = m->labels.find(c.backend);
  return it == m->labels.end() ? c.backend : it->second;
}

std::string run_title_md(const std::string& suite_name, const std::vector<const Case*>& cases) {
  const MeasuredFunction* one = nullptr;
  for (const auto* c : cases) {
    const auto* m = measured_of(*c);
    if (!m || (one && (m->function != one->function || m->source != one->source))) return "suite " + md_literal(suite_name);
    one = m;
  }
  if (!one) return "suite " + md_literal(suite_name);
  return fmt::format("function {} from {}", md_code(one->function), md_cell(one->source));
}
}  // namespace jitbench
