// The bisection: one `jitbench run` per step in a pinned environment, the
// samples of the metric per case, compare's gate against the good end, the
// search between the ends and the confirmation of the boundary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <optional>
#include <map>

#include <sys/stat.h>

#include "commands/bisection/bisection.h"
#include "commands/bisection/git_range.h"
#include "commands/bisection/search.h"
#include "commands/common/common.h"
#include "compare/anatomy_delta.h"
#include "compare/compare.h"
#include "compare/runs_needed.h"
#include "config/environments.h"
#include "compare/significance.h"
#include "export/docs/anatomy_delta_text.h"
#include "export/json/bisect_json.h"
#include "export/docs/interference_text.h"
#include "env/probe.h"
#include "export/json/json_util.h"
#include "plan/plan.h"
#include "report/format.h"
#include "results/read.h"
#include "results/views.h"
#include "run/protocol.h"
#include "run/subprocess.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "util/fs.h"
#include "util/interrupt.h"
#include "util/say.h"

namespace jitbench {
namespace fs = std::filesystem;

namespace {

// import, first_call, ttfr, warm and instructions_<phase> are compare's samples
// (compare::metric_samples); process_ttfr and compile (every measured phase of
// the first call) are bisect's own.
std::vector<double> samples_of(const CaseResult& c, const std::string& metric) {
  static const std::map<std::string, std::string> kCompared = {
      {"import", "cold_import_s"}, {"first_call", "cold_first_call_s"}, {"ttfr", "cold_ttfr_s"}, {"warm", "warm_call_s"}};
  if (const auto it = kCompared.find(metric); it != kCompared.end()) {
    auto samples = compare::metric_samples(c);
    return std::move(samples[it->second]);
  }
  if (compare::metric_info(metric).kind == compare::MetricKind::Instructions) {
    auto samples = compare::metric_samples(c);
    return std::move(samples[metric]);
  }
  std::vector<double> out;
  for (const auto& r : c.cold) {
    if (r.status != Status::Ok) continue;
    std::optional<double> v;
    if (metric == "process_ttfr") v = r.process_ttfr_s();
    else if (auto b = phase_breakdown(r)) v = b->sum_phases;
    if (v) out.push_back(*v);
  }
  return out;
}

// Whether a case's measured runs can be judged, its anatomy processes aside:
// --anatomy is a diagnostic, and an anatomy process that failed (a mapping
// table meeting an older release's events) fails the case without making its
// measured runs untrue, so it must not change the bisection's answer.
bool measured_runs_comparable(const CaseResult& c) {
  if (c.anatomy.empty() && c.counted.empty()) return timings_comparable(c);
  CaseResult measured = c;
  measured.anatomy.clear();
  measured.counted.clear();  // a counting process that failed leaves the others' counts, and the times, to judge
  settle_status(measured);
  return timings_comparable(measured);
}

// The arguments of `jitbench run` that make the selection (cache policies and precisions by their canonical
// names: an alias such as process_cold is written as the policy it stands for).
std::vector<std::string> run_args(const RunOptions& o) {
  std::vector<std::string> a;
  const auto list = [&](const char* flag, const std::vector<std::string>& v) {
    if (!v.empty()) a.insert(a.end(), {flag, fmt::format("{}", fmt::join(v, ","))});
  };
  if (!o.suite_file.empty()) a.insert(a.end(), {"--suite", fs::absolute(o.suite_file).string()});
  list("--cases", o.cases);
  list("--backends", o.backends);
  const auto names = [&](const char* flag, const auto& typed) {  // cache policies, precisions: config/names.h
    std::vector<std::string> v;
    for (const auto x : typed) v.emplace_back(to_string(x));
    list(flag, v);
  };
  names("--cache-policy", o.cache_policies);
  names("--precision", o.precisions);
  for (const auto& w : o.workload_paths) a.insert(a.end(), {"--workload-path", fs::absolute(w).string()});
  if (o.cold_runs) a.insert(a.end(), {"--cold-runs", std::to_string(*o.cold_runs)});
  if (o.warm_iters) a.insert(a.end(), {"--warm-iters", std::to_string(*o.warm_iters)});
  if (o.warm_runs) a.insert(a.end(), {"--warm-runs", std::to_string(*o.warm_runs)});
  if (o.timeout_s) a.insert(a.end(), {"--timeout", fmt::format("{}", *o.timeout_s)});
  if (o.target_ci_pct) a.insert(a.end(), {"--target-ci", fmt::format("{}", *o.target_ci_pct)});
  if (o.min_runs) a.insert(a.end(), {"--min-runs", std::to_string(*o.min_runs)});
  if (o.max_runs) a.insert(a.end(), {"--max-runs", std::to_string(*o.max_runs)});
  if (o.max_time_s) a.insert(a.end(), {"--max-time", fmt::format("{}", *o.max_time_s)});
  for (const auto& f : o.find_links) a.insert(a.end(), {"--find-links", fs::absolute(f).string()});
  if (o.no_index) a.push_back("--no-index");
  if (!o.affinity.empty()) a.insert(a.end(), {"--affinity", cpu_list_text(o.affinity)});
  if (o.count) a.insert(a.end(), {"--count", o.count_source.empty() ? "instructions" : "instructions:" + o.count_source});
  if (o.count_runs) a.insert(a.end(), {"--count-runs", std::to_string(*o.count_runs)});
  if (o.jobs) a.insert(a.end(), {"--jobs", std::to_string(*o.jobs)});
  return a;
}

// What every step runs: `jitbench run` of the selection, or with a TARGET
// `jitbench measure` of the user's function (its file paths made absolute,
// so that a step finds them wherever it runs).
std::vector<std::string> step_command(const BisectOptions& o) {
  if (o.target.empty()) return {"/proc/self/exe", "run"};
  const auto absolute = [](const std::string& spec) {
    const auto colon = spec.rfind(':');
    if (colon == std::string::npos) return spec;
    const auto where = spec.substr(0, colon);
    const bool file = where.ends_with(".py") || where.find('/') != std::string::npos;
    return file ? fs::absolute(where).string() + spec.substr(colon) : spec;
  };
  std::vector<std::string> argv = {"/proc/self/exe", "measure", absolute(o.target)};
  for (const auto& [flag, value] : {std::pair{"--inputs", o.inputs}, {"--check", o.check}, {"--name", o.name}})
    if (!value.empty()) argv.insert(argv.end(), {flag, flag == std::string("--name") ? value : absolute(value)});
  return argv;
}

enum class Verdict { Regression, Clear, Inconclusive };
struct Judgement {
  Verdict verdict;
  long more_runs;  // inconclusive: runs per side to add to decide the least decided case (compare/runs_needed.h)
  long runs = 0;   // the fewest samples per side of a compared case
  bool decidable = true;  // false: some undecided case would take more than kMaxRunsPerSide runs a side
  long estimate = 0;      // the runs per side the least decided case would take, by the estimate
};

// The least decided case's runs: the most asked for, and undecidable above all.
void note_runs_needed(Judgement& j, const compare::RunsNeeded& r) {
  if (!r.decidable) j.decidable = false;
  j.more_runs = std::max(j.more_runs, r.more);
  j.estimate = std::max(j.estimate, r.estimate);
}

// What would decide a step this noise cannot: said where bisect gives up on one.
std::string what_would_decide() {
  return "instruction counts, which the load cannot move (`--count instructions --metric instructions_<phase>`), a "
         "quieter machine (`jitbench doctor` says what disturbs this one), or a --threshold further from the step's "
         "size";
}

class Bisection {
 public:
  Bisection(const BisectOptions& o, const OutDir& out, const std::vector<GitCommit>& commits)
      : o_(o), out_(out), commits_(commits) {}

  // The candidates, oldest first, from good to bad (with --git: commit ids).
  std::vector<std::string> candidates() {
    if (!o_.git.empty()) {
      std::vector<std::string> shas;
      for (const auto& c : commits_.empty() ? git_candidates(o_.git, o_.good, o_.bad) : commits_) {
        subjects_[c.sha] = c.subject;
        shas.push_back(c.sha);
      }
      return shas;
    }
    std::vector<std::string> all = o_.versions.empty() ? released_versions() : o_.versions;
    const auto g = std::find(all.begin(), all.end(), o_.good), b = std::find(all.begin(), all.end(), o_.bad);
    if (g == all.end() || b == all.end())
      throw UserError(fmt::format("bisect: {} {} and {} must both be among the releases ({})", o_.package, o_.good,
                                  o_.bad, fmt::join(all, ", ")));
    if (g >= b) throw UserError(fmt::format("bisect: --good {} must be an earlier release than --bad {}", o_.good, o_.bad));
    for (auto it = g; it <= b; ++it)  // a listed release names a directory too
      if (!valid_release_version(*it))
        throw UserError(fmt::format("bisect: {} lists '{}', which is not a release version (PEP 440)", o_.package, *it));
    return {g, b + 1};
  }

  // One run of the selection in the environment of release v; its samples.
  StepSamples measure(const std::string& v, const std::string& role) { return measure_side_by_side({{v, role}}).front(); }

  // steps/<name>, made here through the door before its run starts (`run`
  // takes an existing empty directory), and what it is (device and inode): a
  // link at steps/ or at the name, or a directory this bisect did not make, is
  // refused (exit 13), never followed or read by the step's run.
  struct StepDir {
    fs::path path;
    fs::path rel;  // below the out dir: steps/<name>
    dev_t dev = 0;
    ino_t ino = 0;
  };
  StepDir make_step_dir(const std::string& name) const {
    const fs::path rel = fs::path("steps") / name, path = out_.root() / rel;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(out_.root() / "steps", ec)))
      throw WriteError(fmt::format("{} is a symbolic link: nothing is measured or read through it; remove it and "
                                   "bisect again into a new --out-dir",
                                   (out_.root() / "steps").string()),
                       ELOOP);
    if (const auto there = fs::symlink_status(path, ec); fs::exists(there))
      throw WriteError(fmt::format("{} is already there{}, and this bisect did not make it: nothing is measured or "
                                   "read there; bisect again into a new --out-dir",
                                   path.string(), fs::is_symlink(there) ? " (a symbolic link)" : ""),
                       ELOOP);
    make_dir_in(out_.root(), rel);
    struct stat st {};
    if (crosses_link(out_.root(), rel) || ::lstat(path.c_str(), &st) != 0)
      throw WriteError(fmt::format("{} was replaced as it was made: nothing is measured there; bisect again into a "
                                   "new --out-dir",
                                   path.string()),
                       ELOOP);
    return {path, rel, st.st_dev, st.st_ino};
  }
  // After its run, before anything of it is read: the directory must still be
  // the one made for it, reached through no link (a steps/ made a link, moved
  // away or replaced while the run measured is refused).
  void check_step_dir(const StepDir& d) const {
    struct stat st {};
    if (crosses_link(out_.root(), d.rel) || ::lstat(d.path.c_str(), &st) != 0 || st.st_dev != d.dev ||
        st.st_ino != d.ino)
      throw WriteError(fmt::format("{} is no longer the directory this bisect made for the step (a symbolic link on "
                                   "the way, moved away or replaced while it measured): nothing of it is read; "
                                   "bisect again into a new --out-dir",
                                   d.path.string()),
                       ELOOP);  // exit 13, as a link is
  }

  // Releases compared with each other (the two ends, the boundary's two sides)
  // measured in one run, one pinned environment each, whose cold processes are
  // interleaved (run's groups: a drift of the machine lands on both); one step
  // per release, all of them pointing at that run. Their samples, in order.
  std::vector<StepSamples> measure_side_by_side(const std::vector<std::pair<std::string, std::string>>& releases) {
    std::vector<std::string> names, argv = step_command(o_);
    std::string dir_name;
    const auto sel = run_args(o_.selection);
    argv.insert(argv.end(), sel.begin(), sel.end());
    for (const auto& [v, role] : releases) {
      // One name per release (SlowImp 1.0+a is slowimp-1.0_pa, 1.0-a slowimp-1.0-a): two releases measured
      // side by side never share an environment or a directory; a commit by its first 12 hex digits
      // (slowimp-3f2a1b0c9d8e).
      names.push_back(o_.git.empty() ? release_environment_name(o_.package, v) : commit_environment_name(o_.package, v));
      // Counted per name: a release measured again gets a directory of its own.
      dir_name += fmt::format("{}{}-{}", dir_name.empty() ? "" : "_", names.back(), ++runs_[names.back()]);
      // A commit is a direct reference the environment builder exports and installs itself, with no network.
      std::string env = o_.git.empty() ? fmt::format("{}:{}=={}", names.back(), o_.package, v)
                                       : fmt::format("{}:{} @ git+file://{}@{}", names.back(), o_.package, o_.git, v);
      for (const auto& w : o_.with) env += ";" + replace_version(w, v);
      argv.insert(argv.end(), {"--env", env});
    }
    const StepDir made = make_step_dir(dir_name);
    const fs::path& dir = made.path;
    add_anatomy_args(releases, argv);
    argv.insert(argv.end(), {"--out-dir", dir.string(), "--quiet"});
    SpawnSpec spec;
    spec.argv = argv;
    spec.log_path = out_.root() / "logs" / (dir.filename().string() + ".log");
    spec.log_root = out_.root();
    spec.timeout = std::chrono::hours(24 * 7);
    for (const auto& [v, role] : releases)
      if (!o_.selection.quiet) say(stderr, "jitbench bisect: {} ({}) -> {}\n", label(v), role, dir.string());
    const auto p = launcher_.launch(spec);
    if (interrupted()) throw StepInterrupted{};
    check_step_dir(made);
    const bool ran = p.kind == ExitKind::Exited && (p.exit_code == 0 || p.exit_code == 2);
    auto loaded = ran ? read_run(dir) : std::variant<LoadedRun, std::string>(std::string("not run"));
    const auto* run = std::get_if<LoadedRun>(&loaded);
    if (run) check_same_target(*run);
    std::vector<StepSamples> out;
    for (std::size_t k = 0; k < releases.size(); ++k)
      out.push_back(record_step(releases[k], names[k], made.rel.string(), p.exit_code, run));
    return out;
  }

  // bisect TARGET: every step measures the code the first one did. Each step
  // keeps its own copies of the user's files, as `measure` keeps them
  // (inputs/targets/, with their sha256): a file changed halfway would make
  // the steps measure two programs, so the bisection stops, saying so.
  void check_same_target(const LoadedRun& run) {
    for (const auto& in : run.index.inputs) {
      if (in.kind != "target") continue;
      const auto [it, first] = target_sha_.emplace(in.source, in.sha256);
      if (!first && it->second != in.sha256)
        throw UserError(fmt::format("bisect {}: {} changed while the bisection measured it (its sha256 differs from "
                                    "the first step's, in {}): keep it as it is, and run bisect again",
                                    o_.target, in.source, run.dir.string()));
    }
  }

  // The case results of one release in a run (those of its environment): its
  // step, and the samples of its cases whose measured runs can be judged.
  StepSamples record_step(const std::pair<std::string, std::string>& release, const std::string& env,
                          const std::string& dir, int exit_code, const LoadedRun* run) {
    const auto& [v, role] = release;
    StepSamples samples;
    std::vector<BisectStepCase> cases;
    std::string verdict = run ? "measured" : "failed";
    if (run) {
      bool any = false;
      for (const auto& c : run->cases) {
        if (c.c.env != env) continue;
        const auto key = without_environment(c.c.id);
        if (measured_runs_comparable(c))
          if (auto xs = samples_of(c, o_.metric); !xs.empty()) samples[key] = std::move(xs), any = true;
        if (role == "confirm") {  // the boundary's anatomy: its confirmation runs' only
          auto& mine = anatomy_[v][key];
          mine.insert(mine.end(), c.anatomy.begin(), c.anatomy.end());
        }
        const auto share = case_interference(c);
        cases.push_back({key, std::string(to_string(c.status)), to_string(c.reason), grade_word(share),
                         share.others_cpus_median()});
      }
      if (!any) verdict = "unmeasurable";  // every case warn or failed: the release cannot be built here, say
      if (!o_.selection.quiet) say_grades(v, role, *run, env);
    }
    steps_.push_back({v, role, dir, exit_code, verdict, std::move(cases), {}, o_.git.empty() ? "" : v,
                      o_.git.empty() ? "" : subject(v)});
    return samples;
  }

  // What the machine did while the step measured, per case (docs/noise.md,
  // "Grades"): a step judged on a busy machine may be judged again.
  void say_grades(const std::string& v, const std::string& role, const LoadedRun& run, const std::string& env) const {
    std::string line;
    for (const auto& c : run.cases)
      if (c.c.env == env)
        line += fmt::format("{}{} {}", line.empty() ? "" : ", ", without_environment(c.c.id),
                            case_interference(c).grade_text());
    if (!line.empty()) say(stderr, "jitbench bisect: {} ({}) measured; interference: {}\n", label(v), role, line);
  }

  // A new boundary is being confirmed: the anatomy of an earlier one is not its.
  void forget_anatomy() { anatomy_.clear(); }

  // Per case: the step against a reference (the good end, or the boundary's
  // other side). A regression when some case is slower beyond the threshold
  // with confidence; clear when every case is, with confidence, within it (its
  // ratio's 95% interval ends below 1 + threshold); else inconclusive, with
  // the runs per side the widest such interval would need to decide.
  Judgement judge(const StepSamples& ref, const StepSamples& step, std::vector<BisectEvidence>& evidence) const {
    Judgement j{Verdict::Clear, 0};
    const double limit = 1 + o_.threshold_pct / 100;
    evidence.clear();
    std::size_t compared = 0;
    for (const auto& [key, xs] : step) {
      const auto g = ref.find(key);
      if (g == ref.end()) continue;
      const auto row = compare::metric_row(key, o_.metric, g->second, xs, o_.alpha);
      if (!row) continue;
      ++compared;
      const auto decided = compare::gate(*row, limit, o_.alpha);
      const bool worse = decided == compare::Gate::Regression, clear = decided == compare::Gate::Clear;
      const char* decision = worse ? "regression" : clear ? "clear" : "inconclusive";
      if (worse) j.verdict = Verdict::Regression;
      else if (!clear && j.verdict == Verdict::Clear) j.verdict = Verdict::Inconclusive;
      const auto n = std::min(g->second.size(), xs.size());
      j.runs = j.runs ? std::min<long>(j.runs, static_cast<long>(n)) : static_cast<long>(n);
      if (!worse && !clear) {
        if (row->rule == compare::MetricRule::Spread)  // a count: its spread, not its n, decides
          j.more_runs = std::max(j.more_runs, static_cast<long>(n < compare::kSpreadMedianRuns
                                                                    ? compare::kSpreadMedianRuns - n : 1));
        else
          note_runs_needed(j, compare::runs_needed(g->second, xs, limit, o_.alpha));
      }
      const bool spread = row->rule == compare::MetricRule::Spread;
      evidence.push_back({key, row->new_median, row->base_median, row->ratio, row->lo, row->hi,
                          spread ? std::nullopt : std::optional<double>(row->p), row->testable, worse, decision,
                          compare::metric_info(o_.metric).unit, std::string(compare::to_string(row->rule))});
    }
    // Nothing compared, or a case of the reference not measured here: nothing is clear.
    if (j.verdict == Verdict::Clear && (compared == 0 || compared < ref.size()))
      j = {Verdict::Inconclusive, std::max<long>(j.more_runs, 1), j.runs, j.decidable, j.estimate};
    return j;
  }

  void record_verdict(const std::vector<BisectEvidence>& evidence, const Judgement& j) {
    steps_.back().against_good = evidence;
    steps_.back().verdict = j.verdict == Verdict::Regression ? "bad" : j.verdict == Verdict::Clear ? "good" : "inconclusive";
  }

  const std::vector<BisectStep>& steps() const { return steps_; }

  // bisect --anatomy: per case with anatomy processes on both sides (taken
  // only by the confirmation runs), the sub-phases that moved from lo to hi.
  std::optional<std::vector<BisectAnatomy>> boundary_anatomy(const std::string& lo, const std::string& hi) const {
    if (!o_.selection.anatomy) return std::nullopt;
    std::vector<BisectAnatomy> out;
    const auto a = anatomy_.find(lo), b = anatomy_.find(hi);
    if (a == anatomy_.end() || b == anatomy_.end()) return out;
    for (const auto& [key, runs] : a->second)
      if (const auto other = b->second.find(key); other != b->second.end())
        if (auto deltas = compare::anatomy_deltas(runs, other->second, 0); !deltas.empty())  // the JSON keeps the top
          out.push_back({key, std::move(deltas)});
    return out;
  }

  // A candidate in messages: "slowimp 1.2", or with --git "commit 3f2a1b0c9d8e (its subject)".
  std::string label(const std::string& v) const {
    return o_.git.empty() ? fmt::format("{} {}", o_.package, v) : fmt::format("commit {} ({})", v.substr(0, 12), subject(v));
  }
  std::string subject(const std::string& sha) const {
    const auto it = subjects_.find(sha);
    return it == subjects_.end() ? std::string() : it->second;
  }

 private:
  // bisect --anatomy: the boundary's confirmation runs (only they) take the anatomy.
  void add_anatomy_args(const std::vector<std::pair<std::string, std::string>>& releases,
                        std::vector<std::string>& argv) const {
    const bool confirm = std::any_of(releases.begin(), releases.end(), [](const auto& r) { return r.second == "confirm"; });
    if (!o_.selection.anatomy || !confirm) return;
    argv.push_back("--anatomy");
    if (o_.selection.anatomy_runs) argv.insert(argv.end(), {"--anatomy-runs", std::to_string(*o_.selection.anatomy_runs)});
  }

  static std::string replace_version(std::string req, const std::string& v) {
    for (auto at = req.find("{}"); at != std::string::npos; at = req.find("{}", at + v.size())) req.replace(at, 2, v);
    return req;
  }

  std::vector<std::string> released_versions() {
    std::vector<std::string> argv = {resolve_python(""), "-m", "jitbench_worker.harness.envs", "versions", "--fd",
                                     std::to_string(kResultFd), "--package", o_.package};
    for (const auto& f : o_.selection.find_links) argv.insert(argv.end(), {"--find-links", f});
    if (o_.selection.no_index) argv.push_back("--no-index");
    const auto log = out_.root() / "logs" / "versions.log";
    const auto p = launcher_.launch(worker_module_spawn(argv, resolve_worker_dir(), log, out_.root(), 300));
    for (const auto& line : p.lines)
      if (auto m = parse_message(line); auto* msg = std::get_if<Message>(&m))
        if (msg->type == MessageType::Versions) return msg->body["versions"].get<std::vector<std::string>>();
    throw UserError(fmt::format("bisect: cannot list the releases of {} (see {}); give them with --versions",
                                o_.package, log.string()));
  }

  const BisectOptions& o_;
  const OutDir& out_;
  const std::vector<GitCommit>& commits_;
  PosixLauncher launcher_;
  std::map<std::string, int> runs_;
  std::map<std::string, std::string> target_sha_;  // bisect TARGET: the user's files' sha256, as the first step kept them
  std::map<std::string, std::string> subjects_;  // --git: each candidate's subject
  std::vector<BisectStep> steps_;
  // bisect --anatomy: each candidate's anatomy processes per case (id without its environment).
  std::map<std::string, std::map<std::string, std::vector<RunRecord>>> anatomy_;
};

void write_result(const OutDir& out, const BisectOptions& o, const std::vector<std::string>& candidates,
                  const Bisection& b, BisectResult result) {
  std::optional<BisectGit> git;
  if (!o.git.empty()) git = BisectGit{o.git, o.good, o.bad};
  const BisectDocument doc{.package = o.package,
                           .good = git ? candidates.front() : o.good,
                           .bad = git ? candidates.back() : o.bad,
                           .metric = o.metric,
                           .with = o.with,
                           .candidates = candidates,
                           .threshold_pct = o.threshold_pct,
                           .alpha = o.alpha,
                           .steps = b.steps(),
                           .result = std::move(result),
                           .git = git};
  out.write_text("bisect.json", bisect_json(doc));
  append_step_summary(bisect_markdown(doc), "jitbench bisect");  // where CI shows a job's summary
}
}  // namespace

namespace {
bool counted(const std::string& metric) {
  return compare::metric_info(metric).kind == compare::MetricKind::Instructions;
}
std::string value_text(const BisectEvidence& row, double v) {
  return row.unit == "instructions" ? format_count(v) : format_seconds(v);
}
int digits(const BisectEvidence& row) { return row.rule == "spread" ? 4 : 2; }
// How many runs would decide undecided ends (compare/runs_needed.h; one
// sample per cold process, or per warm process for the warm metric), or that
// none would at this noise.
std::string runs_advice(const BisectOptions& o, const Judgement& j) {
  if (!j.decidable)
    return fmt::format("it cannot be decided at this noise: the estimate is {} runs per end, past the {} bisect "
                       "measures; what would decide it: {}",
                       j.estimate > 0 ? fmt::format("{}", j.estimate) : std::string("more"), compare::kMaxRunsPerSide,
                       what_would_decide());
  const long total = j.runs + j.more_runs;
  const bool capped = j.estimate > total;
  return fmt::format("about {} more runs per end needed, {} in all ({} {}; {})", j.more_runs, total,
                     counted(o.metric) ? "--count-runs" : o.metric == "warm" ? "--warm-runs" : "--cold-runs", total,
                     capped ? fmt::format("the estimate is {} per end, asked for in rounds of at most {}x the runs so "
                                          "far since it is itself uncertain", j.estimate, compare::kMaxGrowth)
                            : std::string("80% likely to decide it if the ratio is the one measured"));
}

// The ends when they do not show a regression: "no regression" only when every
// case is within the threshold with confidence, else "inconclusive" with the
// runs it would take. 0 with the result written, or -1 when the search goes on.
int decide_ends(Bisection& b, const BisectOptions& o, const OutDir& out, const std::vector<std::string>& cands,
                const StepSamples& good, const StepSamples& bad) {
  std::vector<BisectEvidence> evidence;
  const auto j = b.judge(good, bad, evidence);
  b.record_verdict(evidence, j);
  if (j.verdict == Verdict::Regression) return -1;
  const bool clear = j.verdict == Verdict::Clear;
  BisectResult result;
  result.status = clear ? "no_regression" : "inconclusive";
  result.evidence = evidence;
  if (!clear && j.decidable) result.more_runs_needed = j.more_runs;
  if (!clear && j.estimate > 0) result.runs_needed_estimate = j.estimate;
  if (!clear) result.decidable = j.decidable;
  write_result(out, o, cands, b, result);
  const bool git = !o.git.empty();  // commits named by id and subject, releases by version
  if (clear)
    say(stdout, "jitbench bisect: no regression of {} from {}: every case is, {}, less than {:g}% {} ({})\n",
        o.metric,
        git ? fmt::format("{} to {}", b.label(cands.front()), b.label(cands.back()))
            : fmt::format("{} {} to {}", o.package, o.good, o.bad),
        counted(o.metric) ? "over its counting processes' spread" : "with confidence", o.threshold_pct,
        counted(o.metric) ? "more instructions" : "slower", (out.root() / "bisect.json").string());
  else
    say(stdout, "jitbench bisect: inconclusive: {} against {} neither shows nor rules out a regression of {} beyond "
                "{:g}%; {} ({})\n", b.label(cands.back()), git ? b.label(cands.front()) : o.good, o.metric,
        o.threshold_pct, runs_advice(o, j), (out.root() / "bisect.json").string());
  return 0;
}

// A step judged against the good end; an inconclusive one is measured again
// (its samples pooled) and, still not a regression, taken as good. A
// remeasurement that gave nothing decides nothing: the step is left out.
StepCall judge_step(Bisection& b, const StepSamples& good, const std::string& version, const StepSamples& first) {
  std::vector<BisectEvidence> evidence;
  auto j = b.judge(good, first, evidence);
  b.record_verdict(evidence, j);
  if (j.verdict != Verdict::Inconclusive) return j.verdict == Verdict::Regression ? StepCall::Bad : StepCall::Good;
  const auto again = b.measure(version, "remeasure");
  if (again.empty()) return StepCall::Undecided;
  j = b.judge(good, pooled(first, again), evidence);
  if (j.verdict == Verdict::Inconclusive) j.verdict = Verdict::Clear;  // still no regression shown: good
  b.record_verdict(evidence, j);
  return j.verdict == Verdict::Regression ? StepCall::Bad : StepCall::Good;
}

// The boundary measured again, alternately, pooled: does it hold on fresh
// processes? Once more with more runs before it is given up. `lo` keeps the
// last good side's pooled samples (for asking whether it is the bad one).
enum class Boundary { Confirmed, NotConfirmed, Unmeasured };
using Confirmation = std::optional<std::vector<BisectEvidence>>;  // none until the boundary is judged
Boundary confirm_boundary(Bisection& b, const std::string& lo, const std::string& hi, Confirmation& confirm,
                          StepSamples& ls) {
  b.forget_anatomy();
  const auto r1 = b.measure_side_by_side({{lo, "confirm"}, {hi, "confirm"}});
  const auto r2 = b.measure_side_by_side({{lo, "confirm"}, {hi, "confirm"}});
  const auto &l1 = r1[0], &h1 = r1[1], &l2 = r2[0], &h2 = r2[1];
  if (l1.empty() || h1.empty() || l2.empty() || h2.empty()) return Boundary::Unmeasured;
  ls = pooled(l1, l2);
  auto hs = pooled(h1, h2);
  if (b.judge(ls, hs, confirm.emplace()).verdict == Verdict::Regression) return Boundary::Confirmed;
  const auto r3 = b.measure_side_by_side({{lo, "remeasure"}, {hi, "remeasure"}});
  const auto &l3 = r3[0], &h3 = r3[1];
  if (l3.empty() || h3.empty()) return Boundary::Unmeasured;
  ls = pooled(ls, l3);
  hs = pooled(hs, h3);
  return b.judge(ls, hs, confirm.emplace()).verdict == Verdict::Regression ? Boundary::Confirmed
                                                                            : Boundary::NotConfirmed;
}

// bisect --anatomy: what moved inside the compile at the boundary, per case.
void print_boundary_anatomy(const std::optional<std::vector<BisectAnatomy>>& cases) {
  if (!cases) return;
  if (cases->empty())
    say(stdout, "  inside the compile: no case has ok anatomy processes on both sides of the boundary (only JIT "
                "backends have one; a failed anatomy process is in the confirmation step's case file)\n");
  for (const auto& c : *cases) say(stdout, "  {} inside the compile: {}\n", c.case_id, anatomy_delta_line(c.items));
}

void finish_search(Bisection& b, const BisectOptions& o, const OutDir& out, const std::vector<std::string>& cands,
                   const Search& s, bool confirmed, const Confirmation& confirm) {
  const auto& first_bad = cands[s.bads.back()];
  const auto& last_good = cands[s.goods.back()];
  std::vector<std::string> between;  // left out, yet between the two: one of them may be the first bad
  for (auto k = s.goods.back() + 1; k < s.bads.back(); ++k) between.push_back(cands[k]);
  BisectResult result;
  result.status = confirmed ? "found" : "unconfirmed";
  result.first_bad = first_bad;
  result.last_good = last_good;
  result.searched = true;
  result.skipped = s.skipped;
  result.overturned = s.overturned;
  result.skipped_between = between;
  result.confirmation = confirm;
  result.boundary_anatomy = b.boundary_anatomy(last_good, first_bad);
  write_result(out, o, cands, b, result);
  const bool git = !o.git.empty();
  say(stdout, "jitbench bisect: {} {} the first {} with the regression of {} (last good {}){}{}; every step in {}\n",
      git ? fmt::format("commit {} ({})", first_bad, b.subject(first_bad)) : o.package + " " + first_bad,
      confirmed ? "is" : "looks like", git ? "commit" : "release", o.metric, git ? last_good.substr(0, 12) : last_good,
      between.empty() ? "" : fmt::format(", or one of {} between them, which could not be measured", fmt::join(between, ", ")),
      confirmed ? ", confirmed by measuring both again" : ", but measuring both again did not confirm it",
      (out.root() / "bisect.json").string());
  for (const auto& row : confirm.value_or(std::vector<BisectEvidence>{}))
    say(stdout, "  {}: {} -> {} ({:.{}f}x [{:.{}f}-{:.{}f}]{})\n", row.case_id, value_text(row, row.good_median),
        value_text(row, row.median), row.ratio, digits(row), row.ratio_lo, digits(row), row.ratio_hi, digits(row),
        row.p ? fmt::format(", p = {:.3g}", *row.p) : std::string(", the processes' spread"));
  print_boundary_anatomy(result.boundary_anatomy);
}
}  // namespace

int bisect(const BisectOptions& o, const OutDir& out, const std::vector<GitCommit>& commits) {
  Bisection b(o, out, commits);
  const auto cands = b.candidates();
  const auto ends = b.measure_side_by_side({{cands.front(), "good"}, {cands.back(), "bad"}});
  const auto& good = ends[0];
  const auto& bad_samples = ends[1];
  if (good.empty() || bad_samples.empty()) {  // an end that cannot be measured decides nothing
    const std::string& end = good.empty() ? cands.front() : cands.back();
    BisectResult result;
    result.status = "unmeasurable";
    result.unmeasurable = end;
    write_result(out, o, cands, b, result);
    throw UserError(fmt::format("bisect: {} gave no comparable measurement (see {}); pick an end that builds and "
                                "runs here", b.label(end), (out.root() / "bisect.json").string()));
  }
  if (const int rc = decide_ends(b, o, out, cands, good, bad_samples); rc >= 0) return rc;
  Search s{{0}, {cands.size() - 1}, std::vector<bool>(cands.size(), false), {}, {}};
  Confirmation confirm;
  auto boundary = Boundary::NotConfirmed;
  // Every release changes sides at most once or twice: the rounds are bounded.
  for (std::size_t rounds = 0; rounds <= 2 * cands.size(); ++rounds) {
    if (const auto mid = middle(s.goods.back(), s.bads.back(), s.skip)) {
      const auto first = b.measure(cands[*mid], "step");
      take_call(s, *mid, first.empty() ? StepCall::Undecided : judge_step(b, good, cands[*mid], first), cands);
      continue;
    }
    StepSamples lo_samples;
    boundary = confirm_boundary(b, cands[s.goods.back()], cands[s.bads.back()], confirm, lo_samples);
    const auto last_good_is_bad = [&] {
      std::vector<BisectEvidence> evidence;
      return b.judge(good, lo_samples, evidence).verdict == Verdict::Regression;
    };
    if (boundary != Boundary::NotConfirmed || !revise(s, last_good_is_bad, cands)) break;
  }
  finish_search(b, o, out, cands, s, boundary == Boundary::Confirmed, confirm);
  return 0;
}

}  // namespace jitbench
