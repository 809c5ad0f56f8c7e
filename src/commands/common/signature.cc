#include "commands/common/signature.h"

#include <fmt/format.h>

#include <stdlib.h>
#include <unistd.h>

#include <regex>

#include "cli/options.h"
#include "run/subprocess.h"
#include "util/fs.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
struct ToolResult {
  bool started = false;
  int rc = -1;
  std::string output;     // stdout and stderr together
  std::string last_line;  // its last non-empty line (util/fs.h last_line)
};

// Runs ssh-keygen with argv, stdin from stdin_file when given, its output into
// a private directory of jitbench's (util/fs.h PrivateDir).
ToolResult ssh_keygen(const std::vector<std::string>& args, const fs::path& stdin_file = {}) {
  const PrivateDir work("jitbench-ssh");
  SpawnSpec spec;
  spec.argv = {"/bin/sh", "-c", stdin_file.empty() ? "exec ssh-keygen \"$@\" </dev/null" : "f=$1; shift; exec ssh-keygen \"$@\" <\"$f\"",
               "ssh-keygen"};
  if (!stdin_file.empty()) spec.argv.push_back(stdin_file.string());
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.log_root = work.path();
  spec.log_path = work.path() / "ssh-keygen.log";
  spec.timeout = std::chrono::seconds(60);
  PosixLauncher launcher;
  const auto p = launcher.launch(spec);
  ToolResult r;
  r.started = p.kind != ExitKind::SpawnFailed;
  r.rc = p.kind == ExitKind::Exited ? p.exit_code : -1;
  r.output = read_file(spec.log_path);
  r.last_line = last_line(spec.log_path);
  if (r.rc == 127) throw UserError("ssh-keygen was not found: install OpenSSH (Debian: openssh-client)");
  return r;
}

std::string fingerprint_in(const std::string& text) {
  std::smatch m;
  static const std::regex re("(SHA256:[A-Za-z0-9+/=]+)");
  return std::regex_search(text, m, re) ? m[1].str() : "";
}
}  // namespace

void ssh_sign(const fs::path& root, const fs::path& rel, const std::string& key) {
  // ssh-keygen writes FILE.sig by path and refuses to replace one: it signs a
  // copy in a private directory, and the signature is moved into place
  // through the door only once made, so a failure keeps the old one.
  const PrivateDir work("jitbench-sign");
  const fs::path copy = work.path() / rel.filename();
  write_file_in(work.path(), rel.filename(), read_file_in(root, rel));
  const auto r = ssh_keygen({"-q", "-Y", "sign", "-n", kSignatureNamespace, "-f", key, copy.string()});
  const fs::path made = copy.string() + ".sig";
  if (r.rc != 0 || !fs::is_regular_file(fs::symlink_status(made)))
    throw UserError(fmt::format("ssh-keygen could not sign {} with '{}': {}{}", (root / rel).string(), key,
                                r.last_line, fs::exists(root / (rel.string() + ".sig")) ? " (its signature is kept)" : ""));
  write_file_in(root, rel.string() + ".sig", read_file(made));
}

SignatureCheck ssh_verify(const fs::path& file, const fs::path& sig, const std::string& allowed_signers) {
  SignatureCheck c;
  const auto who = ssh_keygen({"-Y", "find-principals", "-s", sig.string(), "-f", allowed_signers});
  if (who.rc != 0) {
    c.message = "no allowed signer made this signature: " + who.last_line;
    return c;
  }
  c.principal = who.output.substr(0, who.output.find('\n'));
  const auto v = ssh_keygen({"-Y", "verify", "-f", allowed_signers, "-I", c.principal, "-n", kSignatureNamespace, "-s",
                             sig.string()},
                            file);
  c.ok = v.rc == 0;
  c.key = fingerprint_in(v.output);
  if (!c.ok) c.message = v.last_line;
  return c;
}

SignatureCheck ssh_check_key(const fs::path& file, const fs::path& sig) {
  SignatureCheck c;
  const auto v = ssh_keygen({"-Y", "check-novalidate", "-n", kSignatureNamespace, "-s", sig.string()}, file);
  c.ok = v.rc == 0;
  c.key = fingerprint_in(v.output);
  if (!c.ok) c.message = v.last_line;
  return c;
}

}  // namespace jitbench
