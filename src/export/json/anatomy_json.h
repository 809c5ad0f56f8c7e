#pragma once
// A case's compile anatomy (results/anatomy.h) -> its case file's "anatomy"
// (jitbench.case.v6): the anatomy processes' records and the medians.
#include <nlohmann/json.hpp>

#include "results/model.h"

namespace jitbench {
// null when the case was not asked for an anatomy.
nlohmann::json anatomy_json(const CaseResult& r);
}  // namespace jitbench
