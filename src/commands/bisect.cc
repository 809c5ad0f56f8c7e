// `jitbench bisect --package P --good V1 --bad V2`: which release of P made a
// metric worse. Every step is an ordinary `jitbench run` of the selection in an
// environment pinned to one release (its own out dir under OUT/steps/, which
// validate, report and compare take); the two ends are measured first and the
// regression confirmed (significant, and larger than --threshold with
// confidence: compare's gate), then the releases between them are halved, and
// the final pair is measured again, alternately, to confirm the boundary.
// OUT/bisect.json (schemas/jitbench.bisect.v1.schema.json) has every step;
// the bisection itself is commands/bisection/.
#include "commands/bisection/bisection.h"
#include "commands/commands.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {

int cmd_bisect(const BisectOptions& o) {
  auto prepared = OutDir::prepare(o.out_dir);
  if (auto* e = std::get_if<std::string>(&prepared)) throw UserError(*e);
  const OutDir out = std::get<OutDir>(prepared);
  install_interrupt_handlers();
  try {
    return bisect(o, out);
  } catch (const StepInterrupted&) {
    say(stderr, "jitbench bisect: interrupted; the steps measured so far are in {}\n", (out.root() / "steps").string());
    return 128 + interrupt_signal();
  }
}

}  // namespace jitbench
