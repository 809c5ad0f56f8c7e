// `jitbench sign DIR --key KEY`: the index signed with ssh-keygen -Y (it holds
// the sha256 of every other file, so one signature covers the run); verify.cc
// checks it.
#include <fmt/format.h>

#include "artifacts/out_dir.h"
#include "commands/commands.h"
#include "commands/common/signature.h"
#include "results/read.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

int cmd_sign(const SignOptions& o) {
  require_valid_run(o.dir, "");
  auto reopened = OutDir::reopen(o.dir);  // never beside a run still writing here
  if (auto* e = std::get_if<std::string>(&reopened)) throw UserError(*e);
  const fs::path dir = o.dir;
  ssh_sign(dir, kIndexFile, o.key);
  const auto check = ssh_check_key(dir / kIndexFile, dir / kIndexSignatureFile);
  say(stdout, "{} ({})\n", (dir / kIndexSignatureFile).string(), check.key);
  if (fs::is_regular_file(dir / "replication" / "replication.json")) {
    ssh_sign(dir, "replication/replication.json", o.key);
    say(stdout, "{}\n", (dir / kReplicationSignatureFile).string());
  }
  return 0;
}

}  // namespace jitbench
