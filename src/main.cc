// jitbench: parse -> plan -> run workers -> write artifacts. Every error a user
// can fix ends here as one line on stderr and exit code 2.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <exception>

#include "cli/options.h"
#include "commands/commands.h"
#include "util/fs.h"
#include "util/json_parse.h"
#include "util/say.h"

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
    const Command cmd = parse_command_line(argc, argv);
    if (const auto* d = std::get_if<Done>(&cmd)) return d->exit_code;
    if (const auto* r = std::get_if<RunOptions>(&cmd)) return cmd_run(*r, argc, argv);
    if (const auto* l = std::get_if<ListOptions>(&cmd)) return cmd_list(*l);
    if (const auto* r = std::get_if<ReportOptions>(&cmd)) return cmd_report(*r);
    if (const auto* c = std::get_if<CompareOptions>(&cmd)) return cmd_compare(*c);
    if (const auto* p = std::get_if<PlanOptions>(&cmd)) return cmd_plan(*p);
    if (const auto* m = std::get_if<MergeOptions>(&cmd)) return cmd_merge(*m, argc, argv);
    if (const auto* b = std::get_if<BisectOptions>(&cmd)) return cmd_bisect(*b);
    if (const auto* p = std::get_if<PublishOptions>(&cmd)) return cmd_publish(*p);
    if (const auto* r = std::get_if<ReplicateOptions>(&cmd)) return cmd_replicate(*r);
    if (const auto* s = std::get_if<SignOptions>(&cmd)) return cmd_sign(*s);
    if (const auto* v = std::get_if<VerifyOptions>(&cmd)) return cmd_verify(*v);
    return cmd_validate(std::get<ValidateOptions>(cmd));
  } catch (const UserError& e) {
    say(stderr, "jitbench: error: {}\n", e.what());
    return 2;
  } catch (const WriteError& e) {
    say(stderr, "jitbench: error: {}\n", e.what());
    return kExitWriteFailed;
  } catch (const std::exception& e) {
    say(stderr, "jitbench: internal error: {}\n", e.what());
    return 3;
  }
}
