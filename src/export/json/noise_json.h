#pragma once
// D/noise.json of `jitbench noise` (schemas/jitbench.noise.v1.schema.json).
#include <string>

#include "results/noise_record.h"

namespace jitbench {
inline constexpr const char* kNoiseSchema = "jitbench.noise.v1";
// The document's text, checked against its schema.
std::string noise_json(const NoiseFloor& n);
}  // namespace jitbench
