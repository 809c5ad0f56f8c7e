// jitbench: parse -> plan -> run workers -> write artifacts. Every error a user
// can fix ends here as one line on stderr and exit code 2.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <variant>
#include <vector>

#include "cli/options.h"
#include "commands/commands.h"
#include "util/fs.h"
#include "util/json_parse.h"
#include "util/say.h"

namespace {
// One handler per command: std::visit refuses to compile a Command
// alternative that none of them takes, so no command goes undispatched.
template <class... Handler>
struct Dispatch : Handler... {
  using Handler::operator()...;
};
template <class... Handler>
Dispatch(Handler...) -> Dispatch<Handler...>;

int dispatch(const jitbench::Command& cmd, int argc, char** argv) {
  using namespace jitbench;
  const std::vector<std::string> command(argv, argv + argc);  // as the run's index records it
  return std::visit(Dispatch{[](const Done& d) { return d.exit_code; },
                             [&](const RunOptions& o) { return cmd_run(o, command); },
                             [&](const NoiseOptions& o) { return cmd_noise(o, command); },
                             [&](const MeasureOptions& o) { return cmd_measure(o, command); },
                             [](const ResumeOptions& o) { return cmd_resume(o); },
                             [](const ListOptions& o) { return cmd_list(o); },
                             [](const ValidateOptions& o) { return cmd_validate(o); },
                             [](const ReportOptions& o) { return cmd_report(o); },
                             [](const CompareOptions& o) { return cmd_compare(o); },
                             [](const PlanOptions& o) { return cmd_plan(o); },
                             [&](const MergeOptions& o) { return cmd_merge(o, argc, argv); },
                             [](const BisectOptions& o) { return cmd_bisect(o); },
                             [](const PublishOptions& o) { return cmd_publish(o); },
                             [](const ReplicateOptions& o) { return cmd_replicate(o); },
                             [](const SignOptions& o) { return cmd_sign(o); },
                             [](const VerifyOptions& o) { return cmd_verify(o); },
                             [](const DoctorOptions& o) { return cmd_doctor(o); },
                             [](const EnvsOptions& o) { return cmd_envs(o); }},
                    cmd);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace jitbench;
  // A closed pipe on stdout/stderr is an output error to ignore (util/say.h),
  // never a reason to lose a run.
  std::signal(SIGPIPE, SIG_IGN);
  // Arguments (paths among them) are recorded in JSON artifacts, which hold
  // text: one that is not UTF-8 is refused before anything is written.
  for (int i = 1; i < argc; ++i)
    if (!is_valid_utf8(argv[i])) {
      say(stderr,
          "jitbench: error: argument {} is not valid UTF-8; jitbench records its command and paths in its JSON "
          "artifacts as text: rename the file or directory, or pass a path without those bytes\n",
          i);
      return 2;
    }
  try {
    return dispatch(parse_command_line(argc, argv), argc, argv);
  } catch (const UserError& e) {
    say(stderr, "jitbench: error: {}\n", e.what());
    return 2;
  } catch (const WriteError& e) {
    say(stderr, "jitbench: error: {}\n", e.what());
    return e.link_refused() ? kExitLinkRefused : kExitWriteFailed;
  } catch (const std::exception& e) {
    say(stderr, "jitbench: internal error: {}\n", e.what());
    return 3;
  }
}
