#include "export/json/doctor_json.h"

#include "export/json/json_util.h"
#include "util/build_info.h"
#include "util/cpu_list.h"

namespace jitbench {
using nlohmann::json;

namespace {
template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
json cpus_or_null(const std::optional<std::vector<int>>& v) { return v ? json(cpu_list_text(*v)) : json(nullptr); }
}  // namespace

json findings_json(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const auto& f : findings)
    out.push_back({{"check", f.check}, {"level", to_string(f.level)}, {"found", f.found}, {"meaning", f.meaning},
                   {"action", f.action}});
  return out;
}

json machine_facts_json(const MachineFacts& m) {
  json sample = nullptr;
  if (m.sample)
    sample = {{"seconds", m.sample->seconds}, {"busy_pct", m.sample->busy_pct}, {"steal_pct", m.sample->steal_pct}};
  json load = nullptr;
  if (m.load_avg) load = {(*m.load_avg)[0], (*m.load_avg)[1], (*m.load_avg)[2]};
  return {{"online_cpus", cpus_or_null(m.online_cpus)},
          {"allowed_cpus", cpus_or_null(m.allowed_cpus)},
          {"governors", m.governors},
          {"no_turbo", or_null(m.no_turbo)},
          {"boost", or_null(m.boost)},
          {"smt_active", or_null(m.smt_active)},
          {"aslr", or_null(m.aslr)},
          {"thp_enabled", or_null(m.thp_enabled)},
          {"isolated_cpus", or_null(m.isolated)},
          {"nohz_full", or_null(m.nohz_full)},
          {"swap_total_kib", or_null(m.swap_total_kib)},
          {"swap_free_kib", or_null(m.swap_free_kib)},
          {"mem_available_kib", or_null(m.mem_available_kib)},
          {"load_avg", load},
          {"cpu_sample", sample},
          {"dmi_product", or_null(m.dmi_product)},
          {"dmi_vendor", or_null(m.dmi_vendor)},
          {"hypervisor_flag", or_null(m.hypervisor_flag)},
          {"container_marker", text_or_null(m.container_marker)},
          {"cpu_quota", or_null(m.cpu_quota)},
          {"thread_env", m.thread_env}};
}

json doctor_json(const HostFacts& host, const std::vector<Finding>& findings, const std::string& root,
                 const std::string& checked_at) {
  json counts = {{"ok", 0}, {"note", 0}, {"warn", 0}, {"not_reported", 0}};
  for (const auto& f : findings) counts[to_string(f.level)] = counts[to_string(f.level)].get<int>() + 1;
  return {{"schema_version", kDoctorSchema},
          {"jitbench_version", jitbench_version()},
          {"checked_at", text_or_null(checked_at)},
          {"root", root},
          {"hostname", host.hostname},
          {"kernel", host.kernel},
          {"cpu_model", text_or_null(host.cpu_model)},
          {"findings", findings_json(findings)},
          {"counts", counts},
          {"facts", machine_facts_json(host.machine)}};
}
}  // namespace jitbench
