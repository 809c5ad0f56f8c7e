#include "commands/bisection/git_range.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "cli/options.h"
#include "run/subprocess.h"
#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
struct GitOutput {
  int rc = -1;
  std::string text;  // stdout and stderr together
};

// git -C repo args..., with no terminal prompt and no pager.
GitOutput run_git(const std::string& repo, const std::vector<std::string>& args) {
  std::string templ = (fs::temp_directory_path() / "jitbench-git-XXXXXX").string();
  const int fd = ::mkstemp(templ.data());
  if (fd < 0) throw UserError("cannot create a temporary file for git's output");
  ::close(fd);
  SpawnSpec spec;
  spec.argv = {"git", "-C", repo};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env_set = {{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_PAGER", "cat"}, {"LC_ALL", "C"}};
  spec.log_path = templ;
  spec.timeout = std::chrono::seconds(120);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  GitOutput out{p.kind == ExitKind::Exited ? p.exit_code : -1, read_file(templ)};
  fs::remove(templ);
  if (out.rc == 127 || p.kind == ExitKind::SpawnFailed)
    throw UserError("bisect --git: git was not found: install git (Debian: apt-get install git)");
  return out;
}

std::string git_first_line(const std::string& text) {
  const auto start = text.find_first_not_of("\n");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

// A revision named by the user as the full id of the commit it names.
std::string resolve_commit(const std::string& repo, const std::string& rev, const char* flag) {
  const auto r = rev.empty() || rev.front() == '-'
                     ? GitOutput{}
                     : run_git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"});
  const auto sha = git_first_line(r.text);
  if (r.rc != 0 || sha.size() != 40)
    throw UserError(fmt::format("bisect --git {}: {} '{}' is not a revision of this repository (a commit id, branch "
                                "or tag; see git log)", repo, flag, rev));
  return sha;
}
}  // namespace

std::vector<GitCommit> git_candidates(const std::string& repo, const std::string& good, const std::string& bad) {
  if (!fs::is_directory(repo))
    throw UserError(fmt::format("bisect --git {}: no such directory (give the path of a git repository)", repo));
  if (repo.find_first_of(";\n") != std::string::npos)
    throw UserError(fmt::format("bisect --git '{}': a repository's path may not hold ';' or a newline (it is part "
                                "of each step's requirement); move or link it", repo));
  if (const auto top = run_git(repo, {"rev-parse", "--git-dir"}); top.rc != 0)
    throw UserError(fmt::format("bisect --git {}: not a git repository ({})", repo, git_first_line(top.text)));
  const auto g = resolve_commit(repo, good, "--good"), b = resolve_commit(repo, bad, "--bad");
  if (g == b)
    throw UserError(fmt::format("bisect --git {}: --good {} and --bad {} are the same commit {}", repo, good, bad, g));
  if (run_git(repo, {"merge-base", "--is-ancestor", g, b}).rc != 0)
    throw UserError(fmt::format("bisect --git {}: --good {} is not an ancestor of --bad {}: give the older commit, "
                                "on the history of --bad, as --good", repo, good, bad));
  const auto log = run_git(repo, {"log", "--format=%H %s", "--first-parent", "--ancestry-path", "--reverse",
                                  fmt::format("{}..{}", g, b)});
  const auto subject = run_git(repo, {"log", "-1", "--format=%s", g});
  if (log.rc != 0 || subject.rc != 0)
    throw UserError(fmt::format("bisect --git {}: git log failed: {}", repo, git_first_line(log.text + subject.text)));
  std::vector<GitCommit> out = {{g, git_first_line(subject.text)}};
  for (std::size_t at = 0; at < log.text.size();) {
    const auto end = std::min(log.text.find('\n', at), log.text.size());
    const auto line = log.text.substr(at, end - at);
    if (line.size() >= 40) out.push_back({line.substr(0, 40), line.size() > 41 ? line.substr(41) : ""});
    at = end + 1;
  }
  if (out.back().sha != b)  // the first-parent chain of --bad does not come down to --good's descendants
    throw UserError(fmt::format("bisect --git {}: --bad {} is not reached from --good {} along first parents",
                                repo, bad, good));
  return out;
}

}  // namespace jitbench
