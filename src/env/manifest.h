#pragma once
// The environment manifest (jitbench.environment.v1): what a reader needs to
// judge whether two runs are comparable.
#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace jitbench {

// Variables that steer compilers, threading and devices, captured verbatim.
std::map<std::string, std::string> compiler_env();

// Host facts read from /proc, /sys, uname and nvidia-smi (when present).
nlohmann::json host_facts();

// The manifest: host facts, the worker probe (python, packages, backends), env.
nlohmann::json environment_manifest(const nlohmann::json& probe, bool deterministic);

}  // namespace jitbench
