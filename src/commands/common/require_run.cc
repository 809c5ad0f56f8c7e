#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

#include "artifacts/out_dir.h"
#include "commands/common/common.h"
#include "util/fs.h"
#include "util/json_parse.h"
#include "validate/check_out_dir.h"

namespace jitbench {
namespace {
// A link (or a FIFO, a device) where jitbench makes only files and directories
// is the README's exit 13, like every write the door refuses; the rest, 2.
[[noreturn]] void refuse_run(const std::string& line, Problem kind) {
  if (kind == Problem::Unsafe) throw WriteError(line, ELOOP);
  throw UserError(line);
}
}  // namespace

void require_valid_run(const std::string& dir, const std::string& label) {
  const std::string who = label.empty() ? "" : label + " ";
  if (!std::filesystem::is_directory(dir))
    throw UserError(fmt::format("{}'{}' is not a directory: pass the out dir of a jitbench run", who, dir));
  // A run still being written is not half-made data: say whose it is.
  if (auto busy = OutDirLock::in_use_by_other(dir)) throw UserError(who + *busy);
  // Only what `jitbench validate` accepts is read: a picture or a verdict drawn
  // from tampered or half-written data would look just as convincing.
  const auto rep = check_out_dir(dir);
  if (!rep.errors.empty())
    refuse_run(fmt::format("{}'{}' is not a valid jitbench out dir ({}; see `jitbench validate {}`)", who, dir,
                       rep.errors.front(), dir),
           rep.findings.front().kind);
}

std::string not_resumable(const std::string& dir, const std::string& error) {
  return fmt::format("--resume: '{}' is not a valid jitbench out dir ({}; see `jitbench validate {}`)", dir, error, dir);
}

Resumable require_resumable_run(const std::string& dir, const std::vector<std::string>& recorded_cases,
                                const std::vector<std::string>& failed_cases) {
  if (!std::filesystem::is_directory(dir))
    throw UserError(fmt::format("--resume: '{}' is not a directory: pass the out dir of an interrupted run", dir));
  // A run killed outright (SIGKILL, a lost node) leaves what the case it was
  // measuring had made and the documents rewritten after each case, which its
  // last index does not describe (artifacts/out_dir.h, remade_on_resume):
  // those alone do not stop a resumption, which makes them again.
  const auto rep = check_out_dir(dir);
  const auto in = [](const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  std::vector<std::string> left;
  Resumable out;
  Problem first = Problem::Other;
  for (std::size_t i = 0; i < rep.errors.size(); ++i) {
    const auto& f = rep.findings[i];
    std::string id;
    const Remade remade = remade_on_resume(f.path, &id);
    if (remade == Remade::CaseFile && f.kind == Problem::Unlisted && !in(recorded_cases, id)) {
      out.leftovers.push_back({id, f.path, rep.errors[i]});
      continue;
    }
    if (remade == Remade::Derived && (f.kind == Problem::Unlisted || f.kind == Problem::HashDiffers)) continue;
    // A failed case's file rewritten by a resumption killed before its index: only an
    // interrupted one is measured again, which the caller checks (returned).
    if (remade == Remade::CaseFile && f.kind == Problem::HashDiffers && in(failed_cases, id)) {
      out.rewritten_cases.push_back(id);
      continue;
    }
    if (left.empty()) first = f.kind;
    left.push_back(rep.errors[i]);
  }
  if (!left.empty()) refuse_run(not_resumable(dir, left.front()), first);
  return out;
}

void require_outside_inputs(const std::string& out, const std::string& out_flag, const std::vector<ReadDir>& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto real_out = fs::weakly_canonical(fs::absolute(out), ec);
  for (const auto& in : inputs) {
    if (in.dir.empty()) continue;
    const auto real_in = fs::weakly_canonical(fs::absolute(in.dir), ec);
    const auto rel = real_out.lexically_relative(real_in);
    if (!rel.empty() && *rel.begin() != "..")
      throw UserError(fmt::format("{} '{}' is inside {} '{}', which it reads; {} must stay as it was: give {} outside "
                                  "it", out_flag, out, in.name, in.dir, in.name, out_flag));
  }
}

void require_utf8_cwd() {
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  if (ec)
    throw UserError(fmt::format("the working directory cannot be read ({}): cd to a directory that exists", ec.message()));
  if (!is_valid_utf8(cwd.string()))
    throw UserError("the working directory is not valid UTF-8; jitbench records it and the paths made from it in its "
                    "JSON artifacts as text: cd to a directory whose path is UTF-8, or rename it");
}

}  // namespace jitbench
