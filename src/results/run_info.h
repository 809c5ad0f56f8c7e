#pragma once
// What a run is, beside its cases: the suite, the command, and the machine it
// ran on (the environment manifest, parsed once).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace jitbench {

struct EnvironmentInfo {
  nlohmann::json manifest = nlohmann::json::object();  // environment.json, verbatim
  std::string cpu_model = "unknown CPU";
  std::string logical_cores = "?";
  double memory_total_gib = 0;
  std::string governor, os, kernel, load_avg, captured_at;
  std::string python_version, python_platform, python_executable;
  std::vector<std::pair<std::string, std::string>> packages;  // installed ones, by name
  std::vector<std::string> gpus;  // names; empty when none
  std::string gpu_note;           // why there is none
};
// Never throws: missing fields keep their defaults.
EnvironmentInfo parse_environment(const nlohmann::json& manifest);

struct RunInfo {
  std::string suite_name;
  std::string suite_source;
  std::string command;     // as typed
  std::size_t n_planned = 0;
  EnvironmentInfo environment;
};

// One file of an out dir, as the index lists it.
struct FileEntry {
  std::string path;  // relative to the out dir
  std::string sha256;
  std::uintmax_t bytes = 0;
};

struct RunHeader {
  RunInfo info;
  std::vector<std::string> argv;
  std::string started_at;  // "" when deterministic
  bool deterministic = false;
};

}  // namespace jitbench
