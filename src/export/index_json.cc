#include "export/index_json.h"

#include "export/json_util.h"
#include "results/views.h"

namespace jitbench {
using nlohmann::json;

json index_json(const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                const std::string& finished_at, const std::vector<FileEntry>& files, const Stopped* stopped) {
  json index_cases = json::array();
  int n_ok = 0, n_warn = 0, n_failed = 0;
  for (const auto& c : cases) {
    index_cases.push_back({{"case", c.c.id},
                           {"status", to_string(c.status)},
                           {"reason", text_or_null(to_string(c.reason))},
                           {"path", "cases/" + c.c.id + ".json"},
                           {"cold_ttfr_median_s", median_or_null(cold_values(c, "ttfr_s"))},
                           {"warm_call_median_s", median_or_null(warm_values(c))}});
    if (!c.environment.empty()) index_cases.back()["environment"] = c.environment;
    (c.status == Status::Ok ? n_ok : c.status == Status::Warn ? n_warn : n_failed)++;
  }
  json file_list = json::array();
  for (const auto& f : files) file_list.push_back({{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
  json index = {{"schema_version", kIndexSchema},
                {"jitbench_version", JITBENCH_VERSION},
                {"suite", {{"name", h.info.suite_name}, {"source", h.info.suite_source}}},
                {"command", h.argv},
                {"complete", complete},
                {"started_at", text_or_null(h.started_at)},
                {"finished_at", text_or_null(finished_at)},
                {"environment", "environment.json"},
                {"cases", index_cases},
                {"summary",
                 {{"n_planned", h.info.n_planned},
                  {"n_cases", cases.size()},
                  {"n_ok", n_ok},
                  {"n_warn", n_warn},
                  {"n_failed", n_failed}}},
                {"files", file_list}};
  if (stopped) index["stopped"] = {{"reason", stopped->reason}, {"detail", stopped->detail}};
  for (const auto& [k, v] : h.index_extra.items()) index[k] = v;
  return index;
}

}  // namespace jitbench
