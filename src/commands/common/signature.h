#pragma once
// Signatures of a run's index (and a replication report) with OpenSSH's
// `ssh-keygen -Y` (namespace "jitbench"): present on every machine jitbench
// runs on, keys people already have, and a format (`ssh-keygen -Y verify`)
// anyone can check without jitbench.
#include <filesystem>
#include <string>

namespace jitbench {
inline constexpr const char* kSignatureNamespace = "jitbench";

struct SignatureCheck {
  bool ok = false;
  std::string principal;  // who signed, from the allowed-signers file ("" when not checked)
  std::string key;        // the key's fingerprint (SHA256:...)
  std::string message;    // ssh-keygen's last line when not ok
};

// Writes root/rel.sig through the door (replacing an earlier one only once the
// new one is made). Throws UserError with ssh-keygen's reason when it cannot
// sign; an earlier signature is then kept.
void ssh_sign(const std::filesystem::path& root, const std::filesystem::path& rel, const std::string& key);
// The signature against the allowed signers: who signed, and whether the
// signature is theirs and over exactly this file.
SignatureCheck ssh_verify(const std::filesystem::path& file, const std::filesystem::path& sig,
                          const std::string& allowed_signers);
// The signature over exactly this file, by whichever key made it (no identity).
SignatureCheck ssh_check_key(const std::filesystem::path& file, const std::filesystem::path& sig);
}  // namespace jitbench
