// jitbench_fuzz: a bounded-time mutation fuzzer for the three parsers that read
// what jitbench does not control -- suite files (TOML), worker protocol lines,
// and out dirs under `validate` -- and for the promise behind them: whatever a
// worker sends, the case artifact jitbench writes passes its own schema.
//
//   jitbench_fuzz SEEDS_DIR SECONDS [RNG_SEED]
//   jitbench_fuzz --replay suite|protocol FILE   (a saved failure, once)
//
// SEEDS_DIR is tests/data (the suites, the recorded golden run and its
// artifacts). Each target gets SECONDS/3 of mutations drawn from a fixed RNG
// seed, so a failure reproduces; a crash, a sanitizer report, or an exception
// escaping a parser is a failure (exit 1, the input saved beside the build).
#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "artifacts/write_run.h"
#include "config/suite.h"
#include "export/analysis_json.h"
#include "export/json_util.h"
#include "export/ml_suite.h"
#include "export/schema.h"
#include "plan/plan.h"
#include "results/read.h"
#include "run/classify.h"
#include "run/protocol.h"
#include "util/fs.h"
#include "validate/check_out_dir.h"

namespace fs = std::filesystem;
using namespace jitbench;

namespace {
// Tokens that break parsers more often than random bytes do.
const std::vector<std::string> kTokens = {
    "1e308", "-1", "NaN", "Infinity", "4294967296", "9000000000000000000000", "-0", "\"", "\\", "{", "}", "[", "]",
    "\\ud800", "\\u0000", "null", "true", "\"\"", ",", ":", "=", "\n", "[[matrix]]", "'''", "\xff\xfe", "0x7fffffff",
    "../../", "/etc/passwd", "1e-400", "\"schema_version\"", "\"result\"", "\"bye\""};

std::string mutate(std::string s, std::mt19937_64& rng, const std::vector<std::string>& corpus) {
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const int rounds = 1 + static_cast<int>(pick(4));
  for (int k = 0; k < rounds; ++k) {
    const std::size_t at = pick(s.size() + 1);
    switch (pick(6)) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << pick(8));
        break;
      case 1:  // drop a range
        if (!s.empty()) s.erase(pick(s.size()), 1 + pick(16));
        break;
      case 2:  // insert a token
        s.insert(std::min(at, s.size()), kTokens[pick(kTokens.size())]);
        break;
      case 3:  // replace a number-ish run with a token
        if (!s.empty()) s.replace(pick(s.size()), 1 + pick(8), kTokens[pick(kTokens.size())]);
        break;
      case 4:  // duplicate a range
        if (!s.empty()) {
          const std::size_t from = pick(s.size());
          s.insert(std::min(at, s.size()), s.substr(from, 1 + pick(64)));
        }
        break;
      default: {  // splice in part of another seed
        const auto& other = corpus[pick(corpus.size())];
        if (!other.empty()) s.insert(std::min(at, s.size()), other.substr(pick(other.size()), 1 + pick(128)));
      }
    }
  }
  return s;
}


[[noreturn]] void defect(const std::string& target, const std::string& input, const std::string& what) {
  const auto file = fmt::format("fuzz-failure-{}.bin", target);
  std::ofstream(file, std::ios::binary) << input;
  fmt::print(stderr, "jitbench_fuzz: {}: {} (input saved to {})\n", target, what, file);
  std::exit(1);
}

std::vector<std::string> files_in(const fs::path& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(read_file(e.path()));
  return out;
}
}  // namespace

namespace {
// Suite files: any input is a Suite or a ConfigError line, never an exception.
void fuzz_suite(const std::string& text) {
  try {
    Catalog catalog = Catalog::builtin();  // a workload_paths entry joins this one only
    (void)parse_suite(text, "fuzz.toml", catalog);
  } catch (const std::exception& e) {
    defect("suite", text, std::string("exception escaped parse_suite: ") + e.what());
  }
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(s.substr(start, nl - start));
  out.push_back(s.substr(start));
  return out;
}

std::size_t g_demoted = 0;  // cases fit_case_schema had to strip

// Protocol lines: what a worker sends goes through classification into a
// case artifact that passes its own schema (fit_case_schema throws if even
// the stripped case would not).
void fuzz_protocol(const std::string& text) {
  try {
    ProcessResult p;
    p.kind = ExitKind::Exited;
    p.exit_code = 0;
    p.spawn_ns = 1;
    p.wall_s = 5;
    p.lines = split_lines(text);
    for (const auto& line : p.lines) (void)parse_message(line);
    CaseResult c;
    c.c = make_case("numpy", "matmul", 512, "f32");
    c.cold_runs = 1;
    c.timeout_s = 300;
    RunRequest req;
    req.mode = RunMode::Cold;
    req.timeout_s = 300;
    c.cold.push_back(classify_run(p, req));
    settle_status(c);
    if (!fit_case_schema(c).empty()) ++g_demoted;
    // What is derived from a valid case is valid too: the analysis and the
    // ML-suite export of it pass their schemas.
    const auto derived = [&](const nlohmann::json& doc, const char* schema) {
      const auto problems = validate_against(nlohmann::json::parse(json_text(doc)), schema);
      if (!problems.empty())
        defect("protocol", text,
               fmt::format("a document derived from a valid case breaks {}: {}", schema, problems.front()));
    };
    derived(analysis_json(analyze({c})), kAnalysisSchema);
    if (in_ml_contract(c)) derived(ml_case(c, EnvironmentInfo{}), kMlCaseSchema);
  } catch (const std::exception& e) {
    defect("protocol", text, std::string("exception: ") + e.what());
  }
}

// Out dirs under validate: one file of a real out dir replaced by a mutant;
// validate reports, read_run returns a value or an error line, neither throws.
struct OutDirTarget {
  fs::path dir;
  std::vector<fs::path> files;  // relative
  std::vector<std::string> originals;

  void run(std::size_t which, const std::string& text) {
    const fs::path file = dir / files[which];
    write_file_atomic(file, text);
    try {
      (void)check_out_dir(dir);
      (void)read_run(dir);
    } catch (const std::exception& e) {
      defect("outdir", text, fmt::format("exception with {} mutated: {}", files[which].string(), e.what()));
    }
    write_file_atomic(file, originals[which]);
  }
};

std::vector<std::string> recorded_channels(const fs::path& jsonl) {
  std::vector<std::string> out;
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    std::string joined;
    for (const auto& l : j.at("result").at("lines")) joined += l.get<std::string>() + "\n";
    out.push_back(joined);
  }
  return out;
}

template <typename F>
std::size_t run_for(double seconds, std::mt19937_64& rng, const std::vector<std::string>& seeds, F f) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::size_t n = 0;
  for (; std::chrono::steady_clock::now() < end; ++n) {
    const std::size_t which = std::uniform_int_distribution<std::size_t>(0, seeds.size() - 1)(rng);
    f(which, n % 8 == 0 ? seeds[which] : mutate(seeds[which], rng, seeds));
  }
  return n;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--replay") {  // a saved failure, fed to its target once
    const std::string target = argv[2], input = read_file(argv[3]);
    if (target == "suite") fuzz_suite(input);
    else if (target == "protocol") fuzz_protocol(input);
    else return 2;
    fmt::print("jitbench_fuzz: {} input {}: no defect\n", target, argv[3]);
    return 0;
  }
  if (argc < 3) {
    fmt::print(stderr, "usage: jitbench_fuzz SEEDS_DIR SECONDS [RNG_SEED] | jitbench_fuzz --replay suite|protocol FILE\n");
    return 2;
  }
  const fs::path data = fs::canonical(argv[1]);
  const double seconds = std::stod(argv[2]) / 3;
  std::mt19937_64 rng(argc > 3 ? std::stoull(argv[3]) : 20261122);

  auto suites = files_in(data.parent_path().parent_path() / "suites", ".toml");
  const auto n_suite = run_for(seconds, rng, suites, [](std::size_t, const std::string& s) { fuzz_suite(s); });

  const auto channels = recorded_channels(data / "golden" / "default.workers.jsonl");
  const auto n_proto = run_for(seconds, rng, channels, [](std::size_t, const std::string& s) { fuzz_protocol(s); });

  OutDirTarget od;
  od.dir = fs::temp_directory_path() / fmt::format("jitbench-fuzz-{}", ::getpid());
  fs::remove_all(od.dir);
  fs::copy(data / "golden" / "expected", od.dir, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(od.dir))
    if (e.is_regular_file() && (e.path().extension() == ".json")) {
      od.files.push_back(fs::relative(e.path(), od.dir));
      od.originals.push_back(read_file(e.path()));
    }
  const auto n_dir =
      run_for(seconds, rng, od.originals, [&](std::size_t which, const std::string& s) { od.run(which, s); });
  fs::remove_all(od.dir);
  fmt::print(
      "jitbench_fuzz: {} suite files, {} worker channels ({} stripped to fit the case schema), {} out-dir files in "
      "{:g} s: no defect\n",
      n_suite, n_proto, g_demoted, n_dir, seconds * 3);
  return 0;
}
