// `jitbench publish RUN --to SITE [--id ID]`: a complete, valid run copied
// into SITE/snapshots/ID/run (never overwriting), its seed-format snapshot
// index beside it, an entry appended to SITE/registry.json, and SITE/index.html
// regenerated from every snapshot. One publisher at a time (a lock on the
// site); a run already published is not published again: its site's pages are
// redrawn (after a publish that could not draw them). The work is commands/publishing/.
#include "commands/commands.h"
#include "commands/publishing/publish.h"

namespace jitbench {

int cmd_publish(const PublishOptions& o) { return publish(o); }

}  // namespace jitbench
