#include "commands/common/pinned.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "results/run_info.h"
#include "util/build_info.h"
#include "util/sha256.h"

namespace jitbench {
namespace {
namespace fs = std::filesystem;

// sha256 of a file, "" where it cannot be read (missing, a directory).
std::string sha256_or_empty(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return "";
  try {
    return sha256_file(p);
  } catch (const std::exception&) {
    return "";
  }
}

bool has_user_code(const RunIndex& x) {
  if (x.command.size() > 1 && x.command[1] == "measure") return true;
  return std::any_of(x.inputs.begin(), x.inputs.end(), [](const InputCopy& in) { return in.kind != "suite"; });
}

std::optional<std::string> kept_copies_changed(const LoadedRun& base) {
  for (const auto& in : base.index.inputs)
    if (sha256_or_empty(base.dir / in.path) != in.sha256)
      return fmt::format("its kept copy of {} ({}) is missing or no longer has its recorded sha256", in.source,
                         (base.dir / in.path).string());
  return std::nullopt;
}

// The first of a case's processes whose recorded modules changed, or none
// recorded where the run holds user code.
std::optional<std::string> local_modules_changed(const CaseResult& c, bool user_code, const char* side) {
  for (const auto* runs : {&c.cold, &c.warm})
    for (const auto& r : *runs) {
      if (r.worker.empty()) continue;  // a process that reported nothing measured nothing
      if (!r.worker.local_modules) {
        if (!user_code) continue;  // jitbench's own workload: pinned by its version
        return fmt::format("cannot tell whether {}'s code is pinned (measured before jitbench recorded local "
                           "imports)", side);
      }
      for (const auto& m : *r.worker.local_modules)
        if (sha256_or_empty(m.path) != m.sha256)
          return fmt::format("its target imports {}, which changed since {} was measured", m.path, side);
    }
  return std::nullopt;
}
}  // namespace

std::optional<std::string> why_code_not_pinned(const LoadedRun& run, const std::vector<std::string>& case_ids,
                                               const char* side) {
  if (run.index.merged) return fmt::format("{} is a merged run (compare its shards' runs instead)", side);
  if (run.index.jitbench_version != jitbench_version())
    return fmt::format("{} was measured with jitbench {}, this is jitbench {}: its workloads may differ", side,
                       run.index.jitbench_version, jitbench_version());
  if (auto why = kept_copies_changed(run)) return why;
  const bool user_code = has_user_code(run.index);
  for (const auto& id : case_ids) {
    const auto c = std::find_if(run.cases.begin(), run.cases.end(), [&](const CaseResult& x) { return x.c.id == id; });
    if (c == run.cases.end()) return fmt::format("{} has no case {}", side, id);
    if (auto why = local_modules_changed(*c, user_code, side)) return why;
    // What is known before measuring: a run of user code that did not list its distributions cannot be held
    // to them where it ran in this interpreter (checked after measuring: side_changed).
    if (user_code && c->c.env.empty() &&
        !run.environment.manifest.contains(nlohmann::json::json_pointer("/python/distributions")))
      return fmt::format("cannot tell whether the packages {}'s code imports are installed here as they were (it "
                         "recorded only the backends' packages, before jitbench listed every installed "
                         "distribution)", side);
  }
  return std::nullopt;
}

std::optional<std::string> why_base_code_not_pinned(const LoadedRun& base, const std::vector<std::string>& case_ids) {
  return why_code_not_pinned(base, case_ids, "BASE");
}

namespace {
std::optional<std::string> side_changed(const LoadedRun& recorded, const LoadedRun& again, const char* side) {
  if (recorded.index.jitbench_version != again.index.jitbench_version)
    return fmt::format("{} was measured with jitbench {}, this is jitbench {}: its workloads may differ", side,
                       recorded.index.jitbench_version, again.index.jitbench_version);
  // Cases in a pinned environment ran in one rebuilt from its recorded spec;
  // the others in this interpreter, which must hold what the side's held.
  const bool any_here = std::any_of(again.cases.begin(), again.cases.end(),
                                    [](const CaseResult& c) { return c.c.env.empty(); });
  if (!any_here) return std::nullopt;
  const auto& m = recorded.environment.manifest;
  if (has_user_code(recorded.index) && !m.contains(nlohmann::json::json_pointer("/python/distributions")))
    return fmt::format("cannot tell whether the packages {}'s code imports are installed here as they were (it "
                       "recorded only the backends' packages, before jitbench listed every installed distribution)",
                       side);
  const auto diff = environment_pin_differences(m, again.environment.manifest);
  if (diff.empty()) return std::nullopt;
  return fmt::format("{} ran with other packages than this interpreter has ({}{})", side, diff.front(),
                     diff.size() > 1 ? fmt::format(", and {} more", diff.size() - 1) : "");
}
}  // namespace

std::optional<std::string> why_environment_changed(const LoadedRun& base, const LoadedRun& base_again,
                                                   const LoadedRun& next, const LoadedRun& next_again) {
  if (auto why = side_changed(base, base_again, "BASE")) return why;
  return side_changed(next, next_again, "NEW");
}

}  // namespace jitbench
