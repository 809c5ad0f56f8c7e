// `jitbench replicate SNAPSHOT --out-dir DIR`: the snapshot's recorded
// command, plan, inputs and pinned environments measured again into DIR (an
// ordinary run dir), then DIR/replication/: every correctness gate
// re-checked, the environment differences, per case × metric the
// replica/original ratio with its CI and verdict, and the seed's report.
#include <fmt/format.h>

#include "artifacts/out_dir.h"
#include "artifacts/write_run.h"
#include "cli/recorded_options.h"
#include "commands/common/common.h"
#include "commands/common/signature.h"
#include "commands/replication/replication.h"
#include "export/json/json_util.h"
#include "export/json/publish_json.h"
#include "export/json/replication_json.h"
#include "export/json/schema.h"
#include "results/read.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/say.h"
#include "util/sha256.h"
#include "validate/check_out_dir.h"
#include "validate/cross_references.h"

namespace jitbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
struct Original {
  LoadedRun run;
  std::string id, snapshot_index_sha256;
};

// A published snapshot (SITE/snapshots/ID: run/ and snapshot_index.json) or a run's out dir.
Original locate_original(const std::string& given) {
  const fs::path p = given;
  const bool snapshot = fs::is_regular_file(p / "run" / kIndexFile) && fs::is_regular_file(p / "snapshot_index.json");
  const fs::path dir = snapshot ? p / "run" : p;
  require_valid_run(dir.string(), "");
  auto loaded = read_run(dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw UserError(*e);
  Original o{std::get<LoadedRun>(std::move(loaded)), "", ""};
  if (!o.run.index.complete)
    throw UserError(fmt::format("'{}' is an incomplete run: only a complete run can be replicated", dir.string()));
  if (snapshot) {
    o.id = fs::absolute(p).lexically_normal().filename().string();
    if (o.id.empty()) o.id = fs::absolute(p).lexically_normal().parent_path().filename().string();
    o.snapshot_index_sha256 = sha256_file(p / "snapshot_index.json");
  } else {
    const auto index_sha = sha256_file(dir / kIndexFile);
    o.id = "run-" + index_sha.substr(0, 12);
    std::vector<FileEntry> files;
    for (const auto& f : o.run.index.files) files.push_back({"run/" + f.path, f.sha256, f.bytes});
    o.snapshot_index_sha256 = sha256_hex(json_text(seed_snapshot_index(
        o.id, "unpublished", o.run, files, machine_key(o.run.environment, machine_label(o.run)),
        environment_digest(o.run))));
  }
  return o;
}

// The recorded command with this replica's out dir and interpreter.
std::vector<std::string> replica_argv(const std::vector<std::string>& recorded, const ReplicateOptions& o) {
  std::vector<std::string> argv;
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const auto& a = recorded[i];
    if (a == "--out-dir" || a == "--python" || a == "--machine") {  // this replica's own, not the original's
      ++i;
      continue;
    }
    if (a.rfind("--out-dir=", 0) == 0 || a.rfind("--python=", 0) == 0 || a.rfind("--machine=", 0) == 0 ||
        a == "--quiet" || a == "-q")
      continue;
    argv.push_back(a);
  }
  argv.insert(argv.end(), {"--out-dir", o.out_dir});
  if (!o.machine.empty()) argv.insert(argv.end(), {"--machine", o.machine});
  if (!o.python.empty()) argv.insert(argv.end(), {"--python", o.python});
  if (o.quiet) argv.push_back("--quiet");
  return argv;
}

std::string environment_note(const LoadedRun& original, const std::string& python) {
  std::vector<std::string> envs;
  for (const auto& f : original.index.files)
    if (f.path.rfind("environments/", 0) == 0) envs.push_back(fs::path(f.path).stem().string());
  if (!envs.empty()) {
    std::string names;
    for (const auto& e : envs) names += (names.empty() ? "" : ", ") + e;
    return "the pinned environments rebuilt from their recorded requirements (" + names + ")";
  }
  return "the current interpreter " + python + " (the original ran without pinned environments: its package "
         "versions are compared under differences)";
}
}  // namespace

namespace {
std::string file_text(const std::vector<FileWrite>& files, const std::string& rel) {
  for (const auto& f : files)
    if (f.rel == rel) return f.contents;
  return "";
}

// Each original case's answer with the replica's (status "missing" when the replica lacks it).
std::vector<std::pair<compare::CaseAnswer, compare::CaseAnswer>> paired_answers(const LoadedRun& a, const LoadedRun& b) {
  std::vector<std::pair<compare::CaseAnswer, compare::CaseAnswer>> out;
  for (const auto& c : a.cases) {
    compare::CaseAnswer y{c.c.id, "missing", "", 0, 0};
    for (const auto& d : b.cases)
      if (d.c.id == c.c.id) y = compare::case_answer(d);
    out.emplace_back(compare::case_answer(c), y);
  }
  return out;
}

// An ok case whose runs are not all verified is a claim without its check.
Gate verified_gate(const std::vector<std::pair<compare::CaseAnswer, compare::CaseAnswer>>& answers) {
  std::string bad;
  for (const auto& [x, y] : answers)
    for (const auto* a : {&x, &y})
      if (a->status == "ok" && !a->verified() && bad.empty())
        bad = fmt::format("{}: ok with {} of {} runs verified", a->case_id, a->runs_verified, a->runs);
  return {"ok_means_verified", bad.empty(), bad.empty() ? "every ok case, in both runs, verified every run" : bad};
}

// The correctness gates: each can fail, and a lying replica or original does.
std::vector<Gate> correctness_gates(const Original& orig, const LoadedRun& replica, const ReplicateOptions& o,
                                    const std::vector<FileWrite>& a, const std::vector<FileWrite>& b,
                                    ReplicationFacts& f) {
  std::vector<Gate> gates;
  const auto refs = check_cross_references(orig.run.dir);
  gates.push_back({"original_consistent", refs.errors.empty(),
                   refs.errors.empty() ? fmt::format("schemas, sha256 and {} cross-references hold", refs.checked)
                                       : refs.errors.front()});
  if (!o.allowed_signers.empty()) {
    const bool has = fs::is_regular_file(orig.run.dir / kIndexSignatureFile);
    const auto s = has ? ssh_verify(orig.run.dir / kIndexFile, orig.run.dir / kIndexSignatureFile, o.allowed_signers)
                       : SignatureCheck{false, "", "", "the original is not signed"};
    gates.push_back({"original_signed", s.ok, s.ok ? "signed by " + s.principal + " (" + s.key + ")" : s.message});
  }
  gates.push_back({"same_plan", file_text(a, "plan.json") == file_text(b, "plan.json"),
                   fmt::format("{} case(s) in the original, {} in the replica", orig.run.cases.size(), replica.cases.size())});
  bool same_inputs = true;
  for (const auto& in : orig.run.index.inputs) same_inputs = same_inputs && file_text(a, in.path) == file_text(b, in.path);
  gates.push_back({"same_inputs", same_inputs, fmt::format("{} input file(s) (suite, workloads)", orig.run.index.inputs.size())});
  int differ = 0;
  std::string first;
  for (const auto& [x, y] : paired_answers(orig.run, replica)) {
    f.answers.push_back({x, y});
    if (!(x == y)) {
      ++differ;
      if (first.empty()) first = fmt::format("{}: {} ({}/{} verified) vs {} ({}/{} verified)", x.case_id, x.status,
                                             x.runs_verified, x.runs, y.status, y.runs_verified, y.runs);
    }
  }
  gates.push_back(verified_gate(f.answers));
  gates.push_back({"same_answers", differ == 0 && f.answers.size() == orig.run.cases.size(),
                   differ ? fmt::format("{} case(s) answered differently; first: {}", differ, first)
                          : fmt::format("every case's status and verification reproduced ({})", f.answers.size())});
  return gates;
}
}  // namespace

namespace {
// DIR/replication/: the documents, the deterministic part of both runs; then the index lists them.
ReplicationFacts write_replication(const Original& orig, const LoadedRun& replica, const ReplicateOptions& o,
                                   const std::string& python) {
  const auto a = experiment_files(orig.run), b = experiment_files(replica);
  ReplicationFacts f;
  f.original = &orig.run;
  f.replica = &replica;
  f.original_id = orig.id;
  f.original_snapshot_index_sha256 = orig.snapshot_index_sha256;
  std::string when = replica.index.started_at.empty() ? std::string("deterministic") : replica.index.started_at;
  std::erase_if(when, [](char c) { return c == '-' || c == ':'; });
  f.replica_id = "replica-" + when + "-of-" + orig.id;
  f.generated_at = replica.index.started_at.empty() ? "" : utc_now();
  f.tolerance_pct = o.tolerance_pct;
  f.alpha = o.alpha;
  f.environment_note = environment_note(orig.run, python);
  f.environment_differences = environment_differences(orig.run.environment.manifest, replica.environment.manifest);
  const auto git = [](const LoadedRun& r) { return r.index.jitbench_git ? r.index.jitbench_git->describe : std::string("not recorded"); };
  if (git(orig.run) != git(replica)) f.environment_differences.push_back("jitbench: " + git(orig.run) + " vs " + git(replica));
  f.gates = correctness_gates(orig, replica, o, a, b, f);
  f.timings = compare::replicate_timings(orig.run.cases, replica.cases, o.tolerance_pct, o.alpha);
  const json doc = replication_json(f), seed = seed_replication_report(f, a, b);
  for (const auto& [d, v] : {std::pair{&doc, kReplicationSchema}, {&seed, kSeedReplicationSchema}})
    for (const auto& e : validate_against(*d, v)) throw std::runtime_error(fmt::format("{} does not match its schema: {}", v, e));
  std::vector<FileWrite> files = {{"replication/replication.json", json_text(doc)},
                                  {"replication/replication.md", replication_md(f)},
                                  {"replication/seed_replication_report.json", json_text(seed)}};
  for (const auto& x : a) files.push_back({fs::path("replication/experiment/original") / x.rel, x.contents});
  for (const auto& x : b) files.push_back({fs::path("replication/experiment/replica") / x.rel, x.contents});
  auto reopened = OutDir::reopen(replica.dir);
  if (auto* e = std::get_if<std::string>(&reopened)) throw UserError(*e);
  const OutDir& out = std::get<OutDir>(reopened);
  write_files_in(out.root(), files);
  relist_files(out);
  return f;
}
}  // namespace

namespace {
// With --allowed-signers the original is checked before any of its code runs:
// its signature (else exit 7) and its cross-references (else exit 9), and
// nothing is measured when either fails. Without, one line says the
// snapshot's code will run unverified. 0: go on.
int check_before_running(const Original& orig, const ReplicateOptions& o) {
  if (o.allowed_signers.empty()) {
    say(stderr, "jitbench: note: {}'s recorded command and workload code will run unverified (give "
                "--allowed-signers to check its signature first)\n", orig.id);
    return 0;
  }
  const bool has = fs::is_regular_file(orig.run.dir / kIndexSignatureFile);
  const auto s = has ? ssh_verify(orig.run.dir / kIndexFile, orig.run.dir / kIndexSignatureFile, o.allowed_signers)
                     : SignatureCheck{false, "", "", "the original is not signed"};
  if (!s.ok) {
    say(stderr, "jitbench: replicate: {} is not signed by an allowed signer ({}): nothing was run\n", orig.id,
        s.message);
    return kExitSignature;
  }
  if (const auto refs = check_cross_references(orig.run.dir); !refs.errors.empty()) {
    say(stderr, "jitbench: replicate: {} contradicts itself ({}): nothing was run\n", orig.id, refs.errors.front());
    return kExitReplicaFailed;
  }
  return 0;
}
}  // namespace

int replicate(const ReplicateOptions& o, const MeasureRecorded& measure) {
  require_outside_inputs(o.out_dir, "--out-dir", {{"SNAPSHOT", o.snapshot}});
  const Original orig = locate_original(o.snapshot);
  if (const int rc = check_before_running(orig, o)) return rc;
  const auto command = replica_argv(orig.run.index.command, o);
  const std::string python = resolve_python(o.python);  // the replica's own --python, as replica_argv passes it
  if (!o.quiet) say(stderr, "jitbench: replicating {} with {}\n", orig.id, environment_note(orig.run, python));
  // The original's typed options (an index before v5: its command, parsed), with this replica's own out dir,
  // --machine, --python and --quiet, as the command the replica records has them.
  RunOptions options = orig.run.index.options ? run_options(*orig.run.index.options)
                                              : parse_run_command(orig.run.index.command);
  options.out_dir = o.out_dir;
  options.machine = o.machine;
  options.python = o.python;
  options.quiet = o.quiet;
  const int rc = measure(options, command, orig.run);
  if (rc != 0 && rc != 2) return rc;  // interrupted, or the out dir refused a write: no replica to compare
  auto loaded = read_run(o.out_dir);
  if (auto* e = std::get_if<std::string>(&loaded)) throw std::runtime_error("the replica cannot be read: " + *e);
  const LoadedRun replica = std::get<LoadedRun>(std::move(loaded));
  const auto f = write_replication(orig, replica, o, python);
  if (const auto rep = check_out_dir(o.out_dir); !rep.errors.empty())
    throw std::runtime_error("the replica does not validate after its replication: " + rep.errors.front());
  say(stdout, "{}: {} ({} of {} tested metrics differ by more than {:g}%)\n{}\n", orig.id, replication_verdict(f),
      f.timings.differ, f.timings.tested, o.tolerance_pct, (fs::path(o.out_dir) / "replication" / "replication.md").string());
  const bool failed = std::any_of(f.gates.begin(), f.gates.end(), [](const Gate& g) { return !g.passed; });
  if (failed) return kExitReplicaFailed;
  return f.timings.differ ? kExitReplicaDiffers : f.timings.runs_needed ? kExitReplicaInconclusive : 0;
}

}  // namespace jitbench
