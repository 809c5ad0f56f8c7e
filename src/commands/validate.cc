#include <fmt/format.h>

#include "artifacts/out_dir.h"
#include "commands/commands.h"
#include "results/read.h"
#include "util/say.h"
#include "validate/check_out_dir.h"

namespace jitbench {

int cmd_validate(const ValidateOptions& opts) {
  if (!std::filesystem::is_directory(opts.dir))
    throw UserError(fmt::format("'{}' is not a directory: pass the out dir of a jitbench run", opts.dir));
  // A run still being written is said to be one, not found wanting (its files are not all listed yet).
  if (auto busy = OutDirLock::in_use_by_other(opts.dir)) throw UserError(*busy);
  const auto rep = check_out_dir(opts.dir);
  for (const auto& e : rep.errors) say(stderr, "invalid: {}\n", e);
  if (!rep.errors.empty()) {
    say(stderr, "{}: {} problem(s) found\n", opts.dir, rep.errors.size());
    return 1;
  }
  const auto index = read_index(std::filesystem::path(opts.dir) / kIndexFile);
  const auto* i = std::get_if<RunIndex>(&index);
  if (i && !i->complete) {
    // Every file is what the index says, but the run is not all its plan: say so with its own exit code.
    std::string why = "it did not measure its whole plan";
    if (i->stopped)
      why = fmt::format("stopped: {} ({})", i->stopped->reason, i->stopped->detail);
    else if (i->merged)
      why = fmt::format("merged without {} shard(s) and {} case(s) of its plan", i->merged->missing_shards.size(),
                        i->merged->missing_cases.size());
    say(stdout, "{}: valid but incomplete — {} ({} cases recorded; {} files hashed, {} documents checked)\n", opts.dir,
        why, i->cases.size(), rep.files_hashed, rep.documents_validated);
    return kExitIncomplete;
  }
  say(stdout, "{}: valid ({} files hashed, {} documents checked against their schemas)\n", opts.dir, rep.files_hashed,
      rep.documents_validated);
  return 0;
}

}  // namespace jitbench
