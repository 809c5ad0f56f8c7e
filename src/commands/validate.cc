#include <fmt/format.h>

#include "commands/commands.h"
#include "validate/check_out_dir.h"

namespace jitbench {

int cmd_validate(const ValidateOptions& opts) {
  if (!std::filesystem::is_directory(opts.dir))
    throw UserError(fmt::format("'{}' is not a directory: pass the out dir of a jitbench run", opts.dir));
  const auto rep = check_out_dir(opts.dir);
  for (const auto& e : rep.errors) fmt::print(stderr, "invalid: {}\n", e);
  if (!rep.errors.empty()) {
    fmt::print(stderr, "{}: {} problem(s) found\n", opts.dir, rep.errors.size());
    return 1;
  }
  fmt::print("{}: valid ({} files hashed, {} documents checked against their schemas)\n", opts.dir,
             rep.files_hashed, rep.documents_validated);
  return 0;
}

}  // namespace jitbench
