#pragma once
// Framework environments as a dimension of a suite (docs/environments.md):
// the same cases measured in several pinned environments, each built with uv
// from requirement specifiers, optionally on another Python and with variables
// of its own (XLA_FLAGS=--xla_cpu_use_thunk_runtime=false, say). A suite's
// [[environments]] blocks or `--env [NAME:]REQ;REQ...` on the command line.
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace jitbench {

struct EnvironmentSpec {
  std::string name;                              // [a-z0-9][a-z0-9._-]*: the case id's `__env-<name>`
  std::vector<std::string> requirements;         // as pip and uv take them: "jax==0.4.38", "numba>=0.60,<0.61"
  std::string python;                            // "" = the interpreter jitbench's own .venv is made from
  std::map<std::string, std::string> variables;  // set for every worker in the environment
  bool operator==(const EnvironmentSpec&) const = default;
};

// A name that can stand in a case id: lower-case letters, digits, '.', '-',
// '_', starting with a letter or digit, at most 64 characters.
bool valid_environment_name(std::string_view name);

// The name an environment gets when none is given: its first requirement,
// made a valid name ("jax==0.4.38" -> "jax-0.4.38").
std::string default_environment_name(const std::vector<std::string>& requirements);

// The name of the environment `bisect` pins to one release of a package: one
// name per release, never shared by two of them (injective, unlike the
// default rule, which makes 1.0+a and 1.0-a both pkg-1.0-a). The version is
// kept where it is made of a name's characters ("jax-0.4.26") and escaped
// where it is not: '_' is "__", '+' is "_p", '!' is "_e", any other character
// "_x" and its hex code; a version's letters are lower-cased (PEP 440 reads
// them so). A name longer than 64 keeps 55 characters and a hash of the rest.
std::string release_environment_name(const std::string& package, const std::string& version);

// A distribution's name as PEP 508 has it (letters, digits, '.', '-', '_',
// starting and ending with a letter or digit), and a release's version as
// PEP 440 has it (1.0, 2.1rc1, 1!2.0.post1.dev3+local.7).
bool valid_package_name(const std::string& name);
bool valid_release_version(const std::string& version);

// "" for a requirement uv may be given, else why not: one starting with '-'
// would be read as an option of the installer (--target=DIR installs elsewhere).
std::string forbidden_requirement(const std::string& requirement);

// "REQ;REQ...": each requirement, without the spaces around it (none empty).
std::vector<std::string> split_requirements(const std::string& text);

// `--env [NAME:]REQ;REQ...`: the spec, or a one-line error.
std::variant<EnvironmentSpec, std::string> parse_environment_spec(const std::string& text);

// The test-only switch under which every GPU backend runs its CPU twin's code on
// the CPU (worker/jitbench_worker/backends: how scripts/gpu-verify.sh is tested
// where there is no GPU). It is the whole run's or nothing: environment.json
// records it, and an environment's variables may not set it.
inline constexpr const char* kTestGpuOnCpu = "JITBENCH_TEST_GPU_ON_CPU";
// "" for a variable an environment may set, else why not.
std::string forbidden_environment_variable(const std::string& name);

// `--env-var NAME:K=V` (NAME one of specs): sets the variable, or a one-line error.
std::string apply_environment_variable(std::vector<EnvironmentSpec>& specs, const std::string& text);

// The environments' names are distinct: "" or which one repeats.
std::string duplicate_environment(const std::vector<EnvironmentSpec>& specs);

}  // namespace jitbench
