#include <fmt/format.h>

#include "commands/commands.h"
#include "validate/check_out_dir.h"

namespace jitbench {

void require_valid_run(const std::string& dir, const std::string& label) {
  const std::string who = label.empty() ? "" : label + " ";
  if (!std::filesystem::is_directory(dir))
    throw UserError(fmt::format("{}'{}' is not a directory: pass the out dir of a jitbench run", who, dir));
  // Only what `jitbench validate` accepts is read: a picture or a verdict drawn
  // from tampered or half-written data would look just as convincing.
  const auto rep = check_out_dir(dir);
  if (!rep.errors.empty())
    throw UserError(fmt::format("{}'{}' is not a valid jitbench out dir ({}; see `jitbench validate {}`)", who, dir,
                                rep.errors.front(), dir));
}

}  // namespace jitbench
