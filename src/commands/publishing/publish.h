#pragma once
// `jitbench publish`'s work: a complete, valid run made a snapshot of a site,
// the registry grown by one entry, the site's page drawn again.
#include "cli/options.h"

namespace jitbench {
// Its exit code; throws UserError for a run or a site it refuses.
int publish(const PublishOptions& o);
}  // namespace jitbench
