#pragma once
// Recording and replaying what worker processes left behind. A recorded run
// (JITBENCH_RECORD_WORKERS=FILE jitbench run ...) writes one JSON line per
// process: which run it was and its ProcessResult. ReplayLauncher hands those
// results back in order without spawning anything, so everything after the
// process -- classification, results, analysis, every artifact -- can be
// rerun offline, deterministically (src/artifacts/golden_test.cc).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run/subprocess.h"

namespace jitbench {

class RecordingLauncher final : public ProcessLauncher {
 public:
  RecordingLauncher(ProcessLauncher& inner, const std::filesystem::path& file);
  ProcessResult launch(const SpawnSpec& spec) override;

 private:
  ProcessLauncher& inner_;
  std::ofstream out_;
};

class ReplayLauncher final : public ProcessLauncher {
 public:
  // Throws std::runtime_error when the file cannot be read or parsed.
  explicit ReplayLauncher(const std::filesystem::path& file);
  // The next recorded result; throws when the spec asks for another run than
  // the one recorded next (backend, workload, n, mode), or none is left.
  ProcessResult launch(const SpawnSpec& spec) override;
  std::size_t remaining() const { return records_.size() - next_; }

 private:
  struct Record {
    std::string key;
    ProcessResult result;
  };
  std::vector<Record> records_;
  std::size_t next_ = 0;
};

// "backend workload n mode" from a worker's argv: what a recording is matched on.
std::string run_key(const std::vector<std::string>& argv);

}  // namespace jitbench
