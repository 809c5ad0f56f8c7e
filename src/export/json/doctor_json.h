#pragma once
// `jitbench doctor --json` (schemas/jitbench.doctor.v1.schema.json), and the
// same findings and facts as environment.json records them (host.machine,
// host.checks).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "env/doctor.h"
#include "env/host.h"

namespace jitbench {
inline constexpr const char* kDoctorSchema = "jitbench.doctor.v1";

// [{check, level, found, meaning, action}], in the order of the checks.
nlohmann::json findings_json(const std::vector<Finding>& findings);
// The facts the checks judged, each null when its file is absent.
nlohmann::json machine_facts_json(const MachineFacts& m);
// checked_at "" for none.
nlohmann::json doctor_json(const HostFacts& host, const std::vector<Finding>& findings, const std::string& root,
                           const std::string& checked_at);
}  // namespace jitbench
