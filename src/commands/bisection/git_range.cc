#include "commands/bisection/git_range.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cli/options.h"
#include "config/environments.h"
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
  const PrivateDir work("jitbench-git");
  SpawnSpec spec;
  spec.argv = {"git", "-C", repo};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env_set = {{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_PAGER", "cat"}, {"LC_ALL", "C"}};
  // The repository is --git's, never one the environment names.
  spec.env_unset = {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
                    "GIT_DISCOVERY_ACROSS_FILESYSTEM"};
  spec.log_root = work.path();
  spec.log_path = work.path() / "git.log";
  spec.timeout = std::chrono::seconds(120);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  GitOutput out{p.kind == ExitKind::Exited ? p.exit_code : -1, read_file(spec.log_path)};
  if (out.rc == 127 || p.kind == ExitKind::SpawnFailed)
    throw UserError("bisect --git: git was not found: install git (Debian: apt-get install git)");
  return out;
}

std::string git_first_line(const std::string& text) {
  const auto start = text.find_first_not_of("\n");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

// A full object id: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
bool is_object_id(const std::string& s) {
  return (s.size() == 40 || s.size() == 64) && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::vector<std::string> git_lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = std::min(text.find('\n', at), text.size());
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// A short hex revision that is both a branch or tag name and the start of a
// commit id is ambiguous: git would take the name, silently. Refused, naming both.
void refuse_ambiguous(const std::string& repo, const std::string& rev, const char* flag, const std::string& sha) {
  if (rev.size() < 4 || rev.size() >= 40 || rev.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return;
  const auto refs = run_git(repo, {"for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/" + rev,
                                   "refs/tags/" + rev, "refs/remotes/" + rev});
  const auto named = git_lines(refs.text);
  if (refs.rc != 0 || named.empty()) return;
  for (const auto& object : git_lines(run_git(repo, {"rev-parse", "--disambiguate=" + rev}).text)) {
    if (!is_object_id(object) || object == sha) continue;
    const auto type = run_git(repo, {"cat-file", "-t", object});
    if (type.rc != 0 || git_first_line(type.text) != "commit") continue;
    const auto ref = named.front().substr(0, named.front().find(' '));
    throw UserError(fmt::format("bisect --git {}: {} '{}' is ambiguous: it names {} (commit {}) and is the start of "
                                "commit {}; give the full commit id, or {} for the {}", repo, flag, rev, ref,
                                sha.substr(0, 12), object.substr(0, 12), ref,
                                ref.rfind("refs/tags/", 0) == 0 ? "tag" : "branch"));
  }
}

// A revision named by the user as the full id of the commit it names.
std::string resolve_commit(const std::string& repo, const std::string& rev, const char* flag) {
  const auto r = rev.empty() || rev.front() == '-'
                     ? GitOutput{}
                     : run_git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"});
  const auto sha = git_first_line(r.text);
  if (r.rc != 0 || !is_object_id(sha))
    throw UserError(fmt::format("bisect --git {}: {} '{}' is not a revision of this repository (a commit id, branch "
                                "or tag; see git log)", repo, flag, rev));
  refuse_ambiguous(repo, rev, flag, sha);
  return sha;
}

// --git names a repository's top (its work tree, or a bare repository's own directory), not a folder inside one.
void check_repository_top(const std::string& repo) {
  const auto bare = run_git(repo, {"rev-parse", "--is-bare-repository"});
  if (bare.rc != 0)
    throw UserError(fmt::format("bisect --git {}: not a git repository ({}); give the directory git clone or git "
                                "init made", repo, git_first_line(bare.text)));
  const bool is_bare = git_first_line(bare.text) == "true";
  const auto top = run_git(repo, {"rev-parse", is_bare ? "--absolute-git-dir" : "--show-toplevel"});
  std::error_code ec;
  const auto here = fs::canonical(repo, ec);
  const auto there = fs::canonical(git_first_line(top.text), ec);
  if (top.rc != 0 || ec || here != there)
    throw UserError(fmt::format("bisect --git {}: a directory inside the git repository {}, not its top: give "
                                "--git {}", repo, git_first_line(top.text), git_first_line(top.text)));
}

// The first-parent line of bad, newest first, down to and including good; empty when good is not on it.
std::vector<GitCommit> first_parent_line(const std::string& repo, const std::string& good, const std::string& bad) {
  // Each commit's line starts with \x01: git's messages on the same stream are never read as commits.
  const auto log = run_git(repo, {"log", "--first-parent", "--format=%x01%H %s", bad, "--"});
  if (log.rc != 0)
    throw UserError(fmt::format("bisect --git {}: git log --first-parent {} failed ({}); check the repository with "
                                "git fsck", repo, bad, git_first_line(log.text)));
  std::vector<GitCommit> line;
  for (std::size_t at = 0; at < log.text.size();) {
    const auto end = std::min(log.text.find('\n', at), log.text.size());
    const auto text = log.text.substr(at, end - at);
    at = end + 1;
    if (text.empty() || text.front() != '\x01') continue;
    const auto space = std::min(text.find(' '), text.size());
    GitCommit c{text.substr(1, space - 1), space + 1 < text.size() ? text.substr(space + 1) : ""};
    if (!is_object_id(c.sha))
      throw UserError(fmt::format("bisect --git {}: git log gave '{}', not a commit id; check the repository with "
                                  "git fsck", repo, c.sha));
    line.push_back(std::move(c));
    if (line.back().sha == good) return line;
  }
  return {};
}
}  // namespace

std::string commit_environment_name(const std::string& package, const std::string& sha) {
  auto name = default_environment_name({package});
  if (name.size() > 51) name.resize(51);
  while (!name.empty() && (name.back() == '-' || name.back() == '.' || name.back() == '_')) name.pop_back();
  return (name.empty() ? std::string("env") : name) + "-" + sha.substr(0, 12);
}

std::vector<GitCommit> git_candidates(const std::string& repo, const std::string& good, const std::string& bad) {
  if (!fs::is_directory(repo))
    throw UserError(fmt::format("bisect --git {}: no such directory (give the path of a git repository)", repo));
  if (repo.find_first_of(";\n") != std::string::npos)
    throw UserError(fmt::format("bisect --git '{}': a repository's path may not hold ';' or a newline (it is part "
                                "of each step's requirement); move or link it", repo));
  check_repository_top(repo);
  const auto g = resolve_commit(repo, good, "--good"), b = resolve_commit(repo, bad, "--bad");
  if (g == b)
    throw UserError(fmt::format("bisect --git {}: --good {} and --bad {} are the same commit {}", repo, good, bad, g));
  if (run_git(repo, {"merge-base", "--is-ancestor", g, b}).rc != 0)
    throw UserError(fmt::format("bisect --git {}: --good {} is not an ancestor of --bad {}: give the older commit, "
                                "on the history of --bad, as --good", repo, good, bad));
  auto out = first_parent_line(repo, g, b);
  if (out.empty())  // good is on a branch merged into bad's line: the steps would leave that line
    throw UserError(fmt::format("bisect --git {}: --good {} is not on the first-parent line of --bad {} (a commit of "
                                "a merged branch): give a commit of `git log --first-parent {}` as --good, such as "
                                "the one before the merge", repo, good, bad, bad));
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace jitbench
