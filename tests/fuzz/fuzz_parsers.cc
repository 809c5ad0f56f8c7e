// jitbench_fuzz: a bounded-time mutation fuzzer for the three parsers that read
// what jitbench does not control -- suite files (TOML), worker protocol lines,
// and out dirs under `validate` -- and for the promise behind them: whatever a
// worker sends, the case artifact jitbench writes passes its own schema.
//
//   jitbench_fuzz SEEDS_DIR SECONDS [RNG_SEED] [--corpus DIR]
//   jitbench_fuzz --grow-corpus DIR SEEDS_DIR SECONDS
//   jitbench_fuzz --replay suite|protocol|outdir FILE [SEEDS_DIR]   (a saved failure, once)
//
// SEEDS_DIR is tests/data (the suites, the recorded golden run and its
// artifacts). --corpus replays every input of DIR/{suite,protocol,outdir}
// first; then each target gets SECONDS/3 of mutations from RNG_SEED (a fresh
// one when none is given, printed first so that a failure reproduces). A crash,
// a sanitizer report, or an exception escaping a parser is a failure (exit 1,
// the input saved beside the build). --grow-corpus fuzzes from a fixed seed and
// keeps in DIR each mutant whose outcome -- the parser's answer with the
// input's numbers and quoted values left out -- no input of DIR gave before.
// An outdir input is the mutated file's path inside the out dir, a newline,
// then its text.
#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "artifacts/write_run.h"
#include "config/suite.h"
#include "export/json/analysis_json.h"
#include "export/json/json_util.h"
#include "export/json/ml_suite.h"
#include "export/json/schema.h"
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
std::string fuzz_suite(const std::string& text) {
  try {
    Catalog catalog = Catalog::builtin();  // a workload_paths entry joins this one only
    const auto parsed = parse_suite(text, "fuzz.toml", catalog);
    if (const auto* err = std::get_if<ConfigError>(&parsed)) return "config error: " + err->message;
    return "suite";
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
std::string fuzz_protocol(const std::string& text) {
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
    return fmt::format("{} {} {}", to_string(c.status), to_string(c.reason), c.detail);
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

  std::string run(std::size_t which, const std::string& text) {
    const fs::path file = dir / files[which];
    write_file_atomic(file, text);
    std::string outcome;
    try {
      const auto report = check_out_dir(dir);
      outcome = report.errors.empty() ? "valid" : report.errors.front();
      const auto read = read_run(dir);
      if (const auto* err = std::get_if<std::string>(&read)) outcome += " | " + *err;
    } catch (const std::exception& e) {
      defect("outdir", files[which].string() + "\n" + text,
             fmt::format("exception with {} mutated: {}", files[which].string(), e.what()));
    }
    write_file_atomic(file, originals[which]);
    return files[which].string() + ": " + outcome;
  }

  // An input of the corpus or a saved failure: the file's path, a newline, its text.
  std::string run_saved(const std::string& saved) {
    const auto nl = saved.find('\n');
    const fs::path rel = nl == std::string::npos ? fs::path() : fs::path(saved.substr(0, nl));
    for (std::size_t i = 0; i < files.size(); ++i)
      if (files[i] == rel) return run(i, saved.substr(nl + 1));
    fmt::print(stderr, "jitbench_fuzz: an outdir input names {}, which the golden out dir does not hold\n",
               rel.string());
    std::exit(2);
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

// What an outcome says without the input's own numbers and quoted values, so
// that "line 3" and "line 4" of the same complaint count once.
std::string outcome_key(const std::string& outcome) {
  std::string key;
  bool quoted = false;
  char quote = 0;
  for (std::size_t i = 0; i < outcome.size(); ++i) {
    const char ch = outcome[i];
    if (quoted) {
      if (ch == quote) quoted = false;
      continue;
    }
    if (ch == '"' || ch == '\'' || ch == '`') {
      quoted = true;
      quote = ch;
      key += "<q>";
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      if (key.empty() || key.back() != '#') key += '#';
    } else {
      key += ch;
    }
  }
  return key;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const unsigned char ch : s) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

// A corpus directory: DIR/<target>/<fnv1a of the input>.bin, and the outcome
// keys its inputs gave.
struct Corpus {
  fs::path dir;
  bool grow = false;
  std::map<std::string, std::set<std::string>> keys;  // target -> outcome keys seen
  std::size_t replayed = 0, added = 0;

  std::vector<std::pair<fs::path, std::string>> inputs(const std::string& target) const {
    std::vector<std::pair<fs::path, std::string>> out;
    if (!fs::is_directory(dir / target)) return out;
    for (const auto& e : fs::directory_iterator(dir / target))
      if (e.is_regular_file() && e.path().extension() == ".bin") out.emplace_back(e.path(), read_file(e.path()));
    std::sort(out.begin(), out.end());
    return out;
  }
  void saw(const std::string& target, const std::string& outcome) { keys[target].insert(outcome_key(outcome)); }
  // Keeps `saved` (the input as a corpus file holds it) if its outcome is new.
  void offer(const std::string& target, const std::string& saved, const std::string& outcome) {
    if (!grow || !keys[target].insert(outcome_key(outcome)).second) return;
    fs::create_directories(dir / target);
    write_file_atomic(dir / target / fmt::format("{:016x}.bin", fnv1a(saved)), saved);
    ++added;
  }
};

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

[[noreturn]] void usage(const std::string& what) {
  fmt::print(stderr,
             "jitbench_fuzz: {}\nusage: jitbench_fuzz SEEDS_DIR SECONDS [RNG_SEED] [--corpus DIR]\n"
             "       jitbench_fuzz --grow-corpus DIR SEEDS_DIR SECONDS\n"
             "       jitbench_fuzz --replay suite|protocol|outdir FILE [SEEDS_DIR]\n",
             what);
  std::exit(2);
}

std::optional<std::uint64_t> parse_seed(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  try {
    return std::stoull(s);
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
}

OutDirTarget golden_out_dir(const fs::path& data) {
  OutDirTarget od;
  od.dir = fs::temp_directory_path() / fmt::format("jitbench-fuzz-{}", ::getpid());
  fs::remove_all(od.dir);
  fs::copy(data / "golden" / "expected", od.dir, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(od.dir))
    if (e.is_regular_file() && (e.path().extension() == ".json")) {
      od.files.push_back(fs::relative(e.path(), od.dir));
      od.originals.push_back(read_file(e.path()));
    }
  return od;
}
}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--replay") {  // a saved failure, fed to its target once
    if (args.size() != 3 && args.size() != 4) usage("--replay takes a target, a file and, for outdir, SEEDS_DIR");
    const std::string& target = args[1];
    const std::string input = read_file(args[2]);
    if (target == "suite") (void)fuzz_suite(input);
    else if (target == "protocol") (void)fuzz_protocol(input);
    else if (target == "outdir") {
      const fs::path data = fs::canonical(args.size() == 4 ? args[3] : "tests/data");
      OutDirTarget od = golden_out_dir(data);
      (void)od.run_saved(input);
      fs::remove_all(od.dir);
    } else usage("--replay: no target named " + target);
    fmt::print("jitbench_fuzz: {} input {}: no defect\n", target, args[2]);
    return 0;
  }

  Corpus corpus;
  std::vector<std::string> pos;
  std::optional<std::uint64_t> seed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--corpus" || args[i] == "--grow-corpus") {
      if (i + 1 >= args.size()) usage(args[i] + " needs a directory");
      corpus.grow = args[i] == "--grow-corpus";
      corpus.dir = args[++i];
    } else {
      pos.push_back(args[i]);
    }
  }
  if (pos.size() < 2 || pos.size() > 3) usage("SEEDS_DIR and SECONDS are needed");
  double total = 0;
  try {
    total = std::stod(pos[1]);
  } catch (const std::exception&) {
    usage("SECONDS is not a number: " + pos[1]);
  }
  if (!(total >= 0)) usage("SECONDS must be 0 or more: " + pos[1]);
  if (pos.size() == 3 && !(seed = parse_seed(pos[2]))) usage("RNG_SEED is not a whole number: " + pos[2]);
  if (corpus.grow && seed) usage("--grow-corpus fuzzes from its fixed seed, so that the same run keeps the same files");
  if (!corpus.dir.empty() && !corpus.grow && !fs::is_directory(corpus.dir))
    usage("no corpus directory at " + corpus.dir.string());
  if (!seed) seed = corpus.grow ? 20261122ULL : std::random_device{}() * 4294967296ULL + std::random_device{}();
  fmt::print("jitbench_fuzz: seed {} (rerun: jitbench_fuzz {} {} {})\n", *seed, pos[0], pos[1], *seed);
  std::fflush(stdout);

  const fs::path data = fs::canonical(pos[0]);
  const double seconds = total / 3;
  std::mt19937_64 rng(*seed);
  OutDirTarget od = golden_out_dir(data);

  // The corpus first: every input replayed (a defect exits here too), its outcomes known before growing.
  if (!corpus.dir.empty()) {
    for (const auto& [path, text] : corpus.inputs("suite")) corpus.saw("suite", fuzz_suite(text)), ++corpus.replayed;
    for (const auto& [path, text] : corpus.inputs("protocol"))
      corpus.saw("protocol", fuzz_protocol(text)), ++corpus.replayed;
    for (const auto& [path, text] : corpus.inputs("outdir")) corpus.saw("outdir", od.run_saved(text)), ++corpus.replayed;
    fmt::print("jitbench_fuzz: corpus {}: {} inputs replayed, no defect\n", corpus.dir.string(), corpus.replayed);
  }

  auto suites = files_in(data.parent_path().parent_path() / "suites", ".toml");
  const auto n_suite = run_for(seconds, rng, suites, [&](std::size_t, const std::string& s) {
    corpus.offer("suite", s, fuzz_suite(s));
  });

  const auto channels = recorded_channels(data / "golden" / "default.workers.jsonl");
  const auto n_proto = run_for(seconds, rng, channels, [&](std::size_t, const std::string& s) {
    corpus.offer("protocol", s, fuzz_protocol(s));
  });

  const auto n_dir = run_for(seconds, rng, od.originals, [&](std::size_t which, const std::string& s) {
    corpus.offer("outdir", od.files[which].string() + "\n" + s, od.run(which, s));
  });
  fs::remove_all(od.dir);
  fmt::print(
      "jitbench_fuzz: {} suite files, {} worker channels ({} stripped to fit the case schema), {} out-dir files in "
      "{:g} s: no defect\n",
      n_suite, n_proto, g_demoted, n_dir, seconds * 3);
  if (corpus.grow) fmt::print("jitbench_fuzz: {} new inputs kept in {}\n", corpus.added, corpus.dir.string());
  return 0;
}
