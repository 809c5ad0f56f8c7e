#pragma once
// Parsed command lines. Parsing lives in cli.cc; the commands only read these.
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace jitbench {

// An error the user can fix: printed as one line, exit code 2.
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::string out_dir;  // "" -> jitbench-out/run-<timestamp>
  std::string suite_file;
  std::string python;
  bool deterministic = false;
  std::optional<int> cold_runs, warm_iters, warm_runs;
  std::optional<double> timeout_s;
  std::vector<std::string> cases, backends, cache_policies, precisions;
  std::vector<std::string> workload_paths;
  bool quiet = false;
};

struct ListOptions {
  std::string python;
  bool json = false;
  bool check_devices = false;
};

struct ValidateOptions {
  std::string dir;
};

struct ReportOptions {
  std::string dir;
  std::string python;
};

struct CompareOptions {
  std::string base, next;
  std::optional<double> fail_on_regression_pct;
  std::string csv, pyperf_base, pyperf_new;
  double alpha = 0.05;
};

struct Done {
  int exit_code = 0;  // --help, --version
};

using Command = std::variant<RunOptions, ListOptions, ValidateOptions, ReportOptions, CompareOptions, Done>;

// Throws UserError with a one-line message for bad input.
Command parse_command_line(int argc, char** argv);

}  // namespace jitbench
