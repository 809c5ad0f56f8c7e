#pragma once
// For unit tests: a directory of one test program's own under the system's
// temporary directory (jitbench-<name>-<pid>), empty when made and removed
// with the object (a static one: when the program ends).
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace jitbench {

class TestDir {
 public:
  explicit TestDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("jitbench-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TestDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace jitbench
