#include <fmt/format.h>

#include <algorithm>

#include "commands/common/common.h"
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

void require_resumable_run(const std::string& dir, const std::vector<std::string>& recorded_cases) {
  if (!std::filesystem::is_directory(dir))
    throw UserError(fmt::format("--resume: '{}' is not a directory: pass the out dir of an interrupted run", dir));
  // A run killed outright (SIGKILL, a lost node) leaves the logs of the case it
  // was measuring, which its last index does not list: those alone do not
  // stop a resumption, which measures that case again.
  auto rep = check_out_dir(dir);
  std::erase_if(rep.errors, [&](const std::string& e) {
    for (const auto& rel : rep.unlisted) {
      if (e != rel + ": present but not listed in the index" || rel.rfind("logs/", 0) != 0) continue;
      const std::string id = rel.substr(5, rel.find('/', 5) - 5);
      if (rel.find('/', 5) != std::string::npos &&
          std::find(recorded_cases.begin(), recorded_cases.end(), id) == recorded_cases.end())
        return true;
    }
    return false;
  });
  if (!rep.errors.empty())
    throw UserError(fmt::format("--resume: '{}' is not a valid jitbench out dir ({}; see `jitbench validate {}`)", dir,
                                rep.errors.front(), dir));
}

}  // namespace jitbench
