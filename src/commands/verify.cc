// `jitbench verify DIR --allowed-signers FILE`: a signed run (sign.cc) verified
// in three steps — the signature, everything `validate` checks, then the
// cross-references between the documents.
#include <fmt/format.h>

#include "commands/commands.h"
#include "commands/common/signature.h"
#include "results/read.h"
#include "util/say.h"
#include "validate/check_out_dir.h"
#include "validate/cross_references.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {
// The signatures: the index's (required) and a replication report's (when there).
std::optional<std::string> check_signatures(const fs::path& dir, const std::string& allowed, SignatureCheck& index) {
  if (!fs::is_regular_file(dir / kIndexSignatureFile))
    return fmt::format("{}: no {} here: sign the run with `jitbench sign {} --key KEY`", dir.string(),
                       kIndexSignatureFile, dir.string());
  index = ssh_verify(dir / kIndexFile, dir / kIndexSignatureFile, allowed);
  if (!index.ok) return fmt::format("{}: the signature of index.json does not verify: {}", dir.string(), index.message);
  if (fs::is_regular_file(dir / kReplicationSignatureFile)) {
    const auto r = ssh_verify(dir / "replication" / "replication.json", dir / kReplicationSignatureFile, allowed);
    if (!r.ok)
      return fmt::format("{}: the signature of replication/replication.json does not verify: {}", dir.string(),
                         r.message);
  }
  return std::nullopt;
}
}  // namespace

int cmd_verify(const VerifyOptions& o) {
  if (!fs::is_directory(o.dir))
    throw UserError(fmt::format("'{}' is not a directory: pass the out dir of a signed jitbench run", o.dir));
  if (!fs::is_regular_file(o.allowed_signers))
    throw UserError(fmt::format("--allowed-signers '{}' is not a file: give an OpenSSH allowed-signers file "
                                "(one line per signer: PRINCIPAL KEYTYPE KEY)", o.allowed_signers));
  const fs::path dir = o.dir;
  SignatureCheck sig;
  if (auto bad = check_signatures(dir, o.allowed_signers, sig)) {
    say(stderr, "not verified: {}\n", *bad);
    return kExitSignature;
  }
  const auto rep = check_out_dir(dir);
  for (const auto& e : rep.errors) say(stderr, "invalid: {}\n", e);
  if (!rep.errors.empty()) {
    say(stderr, "{}: signed by {}, but {} problem(s) found\n", o.dir, sig.principal, rep.errors.size());
    return 1;
  }
  const auto refs = check_cross_references(dir);
  for (const auto& e : refs.errors) say(stderr, "invalid: {}\n", e);
  if (!refs.errors.empty()) {
    say(stderr, "{}: signed by {}, but {} cross-reference(s) disagree\n", o.dir, sig.principal, refs.errors.size());
    return 1;
  }
  int report_files = 0;
  const auto report = check_published_report(dir, report_files);
  for (const auto& e : report) say(stderr, "invalid: {}\n", e);
  if (!report.empty()) {
    say(stderr, "{}: signed by {}, but its published report differs from its snapshot index ({} problem(s))\n",
        o.dir, sig.principal, report.size());
    return 1;
  }
  if (!refs.analysis_note.empty()) say(stderr, "note: {}\n", refs.analysis_note);
  if (!report_files && fs::is_directory(dir / "report"))  // what no signature and no snapshot index covers: said
    say(stderr, "note: report/ is not covered: the signature covers what index.json lists, and no snapshot index "
                "(a published snapshot's) lists report/ here\n");
  const auto index = read_index(dir / kIndexFile);
  const bool complete = std::holds_alternative<RunIndex>(index) && std::get<RunIndex>(index).complete;
  say(stdout, "{}: verified{} — signed by {} ({}); {} files hashed, {} documents checked, {} cross-references{}\n",
      o.dir, complete ? "" : " but incomplete", sig.principal, sig.key, rep.files_hashed, rep.documents_validated,
      refs.checked, report_files ? fmt::format(", {} report files against the snapshot index", report_files) : "");
  return complete ? 0 : kExitIncomplete;
}

}  // namespace jitbench
