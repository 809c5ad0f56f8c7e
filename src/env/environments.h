#pragma once
// Building a run's environments (config/environments.h) before its first case:
// each is made by the Python side (worker/jitbench_worker/harness/envs.py, with uv)
// into a content-addressed cache and reused when its hash matches; then its
// interpreter is probed like the run's own. An environment that cannot be
// built makes its cases warn / environment_unavailable, and the others run.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/environments.h"
#include "run/subprocess.h"

namespace jitbench {

struct EnvironmentBuild {
  std::string name;
  bool ok = false;
  std::string reason;  // when !ok: "environment_unavailable: <the installer's one line>"
  std::string python;  // its interpreter
  std::map<std::string, std::string> variables;
  nlohmann::json record = nlohmann::json::object();  // the builder's record (hash, packages, exclude_newer, ...)
};

struct EnvironmentRequest {
  std::string bootstrap_python;  // runs the builder: the interpreter of jitbench's own .venv (it has uv)
  std::filesystem::path worker_dir;
  std::filesystem::path cache_root;
  std::vector<std::string> find_links;
  bool no_index = false;
  std::filesystem::path log_path, log_root;
  double timeout_s = 3600;  // a large framework's wheels on a slow network
};

// $JITBENCH_ENV_CACHE, else $XDG_CACHE_HOME/jitbench/envs, else ~/.cache/jitbench/envs,
// made absolute; or why there is none (never a world-writable fallback).
std::variant<std::filesystem::path, std::string> environment_cache_root();

EnvironmentBuild build_environment(ProcessLauncher& launcher, const EnvironmentSpec& spec,
                                   const EnvironmentRequest& req);

// For each environment in req.cache_root with a readable record, the hash this
// jitbench (with this uv) computes from it, or null when none does (a
// find-links directory gone); nothing when the builder cannot say (no uv).
std::optional<std::map<std::string, std::optional<std::string>>> current_environment_hashes(
    ProcessLauncher& launcher, const EnvironmentRequest& req);

}  // namespace jitbench
