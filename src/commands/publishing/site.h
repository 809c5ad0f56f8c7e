#pragma once
// A publish site: a directory jitbench made (its marker file), locked by one
// publisher at a time, whose index.html is drawn again from every snapshot.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

#include "artifacts/out_dir.h"
#include "cli/options.h"
#include "results/read.h"

namespace jitbench {
inline constexpr const char* kSiteMarker = ".jitbench-site";

// The site, created (or found empty) and marked, or one jitbench made; locked.
// Throws UserError for a file, a foreign directory or a site another publisher holds.
OutDirLock open_site(const std::filesystem::path& site);
// The site's registry.json, oldest snapshot first (empty for a new site).
std::vector<RegistryEntry> registry_of(const std::filesystem::path& site);
// SITE/index.html, SITE/cases/*.html and SITE/assets/ (rendered by the figures package) from every snapshot in the registry.
void regenerate_site(const PublishOptions& o, const std::filesystem::path& site,
                     const std::vector<RegistryEntry>& entries, const std::string& now);
}  // namespace jitbench
