// What the terminal says as a run starts.
#include <fmt/format.h>

#include "commands/run/progress.h"
#include "commands/run/run.h"
#include "util/say.h"

namespace jitbench {
void announce(bool quiet, std::size_t n, const WorkerSetup& setup, const OutDir& out, const std::string& what) {
  if (quiet) return;
  if (const auto& t = setup.target) {
    say(stderr, "jitbench: {} cases{}, cold and warm processes until the 95% interval of each median is within "
                "+-{:g}% ({} to {} each{}), {} to {} calls per warm process -> {}\n", n, what, t->target_pct,
        t->min_runs, t->max_runs, t->max_time_s ? fmt::format(", {:g} s at most", *t->max_time_s) : "",
        setup.warm_calls_at_least(), setup.warm_iters, out.root().string());  // (and the time rule, if calibrated)
    return;
  }
  say(stderr, "jitbench: {} cases{}, {} cold runs + {} warm run{} of {} each -> {}\n", n, what, setup.cold_runs,
      setup.warm_runs, setup.warm_runs == 1 ? "" : "s", warm_calls_text(setup), out.root().string());
}

}  // namespace jitbench
