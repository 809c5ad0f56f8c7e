#include <fmt/format.h>

#include "commands/commands.h"
#include "util/say.h"
#include "validate/check_out_dir.h"

namespace jitbench {

int cmd_validate(const ValidateOptions& opts) {
  if (!std::filesystem::is_directory(opts.dir))
    throw UserError(fmt::format("'{}' is not a directory: pass the out dir of a jitbench run", opts.dir));
  const auto rep = check_out_dir(opts.dir);
  for (const auto& e : rep.errors) say(stderr, "invalid: {}\n", e);
  if (!rep.errors.empty()) {
    say(stderr, "{}: {} problem(s) found\n", opts.dir, rep.errors.size());
    return 1;
  }
  say(stdout, "{}: valid ({} files hashed, {} documents checked against their schemas)\n", opts.dir, rep.files_hashed,
      rep.documents_validated);
  return 0;
}

}  // namespace jitbench
