// What the command line decides: typed options (shard, names, ceilings),
// --resume as its own command, and the combinations it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/options.h"

namespace jitbench {
namespace {

Command parse_args(std::vector<std::string> args) {
  args.insert(args.begin(), "jitbench");
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  return parse_command_line(static_cast<int>(args.size()), ptrs.data());
}

RunOptions run_of(const std::vector<std::string>& args) {
  const Command cmd = parse_args(args);
  EXPECT_TRUE(std::holds_alternative<RunOptions>(cmd));
  return std::holds_alternative<RunOptions>(cmd) ? std::get<RunOptions>(cmd) : RunOptions{};
}

// The UserError's message, or "" when the line is accepted.
std::string refusal(const std::vector<std::string>& args) {
  try {
    parse_args(args);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(CliEnvs, ListRmAndPruneAreTyped) {
  auto envs = std::get<EnvsOptions>(parse_args({"envs", "list", "--json"}));
  EXPECT_EQ(envs.action, EnvsAction::List);
  EXPECT_TRUE(envs.json);
  envs = std::get<EnvsOptions>(parse_args({"envs", "rm", "jax-0.4.38"}));
  EXPECT_EQ(envs.action, EnvsAction::Remove);
  EXPECT_EQ(envs.target, "jax-0.4.38");
  envs = std::get<EnvsOptions>(parse_args({"envs", "prune", "--older-than", "30", "--max-size", "1.5"}));
  EXPECT_EQ(envs.action, EnvsAction::Prune);
  EXPECT_EQ(envs.older_than_days, 30.0);
  EXPECT_EQ(envs.max_size_gb, 1.5);
  EXPECT_NE(refusal({"envs"}), "");                        // which of the three
  EXPECT_NE(refusal({"envs", "rm"}), "");                  // rm names one
  EXPECT_NE(refusal({"envs", "rm", ""}), "");              // and never ""
  EXPECT_NE(refusal({"envs", "prune", "--older-than", "-1"}), "");
  EXPECT_NE(refusal({"envs", "prune", "--max-size", "nan"}), "");
}

TEST(CliShard, KOfNIsTypedOnce) {
  const auto run = run_of({"run", "--shard", "2/3"});
  ASSERT_TRUE(run.shard.has_value());
  EXPECT_EQ(run.shard->index, 2);
  EXPECT_EQ(run.shard->count, 3);
  EXPECT_FALSE(run_of({"run"}).shard.has_value());
  const Command plan = parse_args({"plan", "--shard", "3/3"});
  ASSERT_TRUE(std::holds_alternative<PlanOptions>(plan));
  const auto& shard = std::get<PlanOptions>(plan).selection.shard;
  ASSERT_TRUE(shard.has_value());
  EXPECT_EQ(shard->index, 3);
  EXPECT_EQ(shard->count, 3);
}

TEST(CliShard, ABadShardIsRefusedWithItsMessage) {
  for (const std::string bad : {"0/3", "4/3", "x", "1/", "/2", "1/10001", "-1/2", "1/2/3"}) {
    EXPECT_EQ(refusal({"run", "--shard", bad}),
              "--shard '" + bad + "' must be K/N with 1 <= K <= N <= 10000 (e.g. 2/3 for the second of three shards)")
        << bad;
    EXPECT_NE(refusal({"plan", "--shard", bad}), "") << bad;
  }
  EXPECT_NE(refusal({"run", "--shard", ""}).find("must not be empty"), std::string::npos);
  EXPECT_EQ(refusal({"run", "--costs", "earlier"}), "--costs balances shards: give it with --shard K/N");
  EXPECT_EQ(refusal({"run", "--costs", "earlier", "--shard", "1/2"}), "");
}

TEST(CliNames, CachePoliciesAndPrecisionsAreEnums) {
  const auto run = run_of({"run", "--cache-policy", "warm_cache,process_cold,warm_process", "--precision", "highest"});
  EXPECT_EQ(run.cache_policies,
            (std::vector<CachePolicy>{CachePolicy::WarmCache, CachePolicy::ColdCache, CachePolicy::WarmProcess}));
  EXPECT_EQ(run.precisions, std::vector<Precision>{Precision::Highest});
  EXPECT_TRUE(run_of({"run"}).cache_policies.empty());
  EXPECT_EQ(refusal({"run", "--cache-policy", "cold_cache,lukewarm"})
                .rfind("unknown value 'lukewarm' for --cache-policy (valid: ", 0),
            0u);
  EXPECT_EQ(refusal({"plan", "--precision", "half"}).rfind("unknown value 'half' for --precision (valid: ", 0), 0u);
}

TEST(CliCeilings, TheModeIsAnEnum) {
  EXPECT_EQ(run_of({"run"}).ceilings, CeilingsMode::Auto);
  EXPECT_EQ(run_of({"run", "--ceilings", "auto"}).ceilings, CeilingsMode::Auto);
  EXPECT_EQ(run_of({"run", "--ceilings", "on"}).ceilings, CeilingsMode::On);
  EXPECT_EQ(run_of({"run", "--ceilings", "off"}).ceilings, CeilingsMode::Off);
  EXPECT_NE(refusal({"run", "--ceilings", "maybe"}).find("--ceilings"), std::string::npos);
}

TEST(CliResume, ResumeIsItsOwnCommand) {
  const Command cmd = parse_args({"run", "--resume", "stopped"});
  ASSERT_TRUE(std::holds_alternative<ResumeOptions>(cmd));
  EXPECT_EQ(std::get<ResumeOptions>(cmd).dir, "stopped");
  EXPECT_FALSE(std::get<ResumeOptions>(cmd).quiet);
  const Command quiet = parse_args({"run", "--resume", "stopped", "-q"});
  ASSERT_TRUE(std::holds_alternative<ResumeOptions>(quiet));
  EXPECT_TRUE(std::get<ResumeOptions>(quiet).quiet);
  // --ceilings auto is the default: giving it changes nothing.
  EXPECT_TRUE(std::holds_alternative<ResumeOptions>(parse_args({"run", "--resume", "stopped", "--ceilings", "auto"})));
}

TEST(CliResume, ResumeTakesNoOtherOption) {
  const std::string alone = "--resume takes the command from the run's own index: give it alone (--quiet excepted)";
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--cold-runs", "2"}, {"--shard", "1/2"}, {"--shard", "9/2"}, {"--ceilings", "off"},
        {"--cache-policy", "warm_cache"}, {"--precision", "highest"}, {"--out-dir", "elsewhere"},
        {"--python", "python3"}, {"--machine", "m"}, {"--deterministic"}, {"--env", "a:numpy"}}) {
    std::vector<std::string> args = {"run", "--resume", "stopped"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(refusal(args), alone) << extra.front();
  }
  EXPECT_EQ(refusal({"run", "--resume", "stopped", "--cache-policy", "lukewarm"})
                .rfind("unknown value 'lukewarm' for --cache-policy", 0),
            0u);
}

TEST(CliBisect, ShardAndEnvironmentsAreRefused) {
  const std::vector<std::string> base = {"bisect", "--package", "jax", "--good", "0.1", "--bad", "0.2",
                                         "--out-dir", "b"};
  EXPECT_TRUE(std::holds_alternative<BisectOptions>(parse_args(base)));
  auto with_shard = base;
  with_shard.insert(with_shard.end(), {"--shard", "1/2"});
  EXPECT_EQ(refusal(with_shard), "bisect makes one environment per release and runs whole plans: leave out --shard, "
                                 "--env and --env-var");
  auto with_policy = base;
  with_policy.insert(with_policy.end(), {"--cache-policy", "warm_cache"});
  EXPECT_EQ(std::get<BisectOptions>(parse_args(with_policy)).selection.cache_policies,
            std::vector<CachePolicy>{CachePolicy::WarmCache});
}

// --git REPO bisects commits: --package becomes optional, --versions is refused,
// and --install-extra is --with's other name.
TEST(CliBisect, GitTakesRevisionsAndInstallExtras) {
  const std::vector<std::string> base = {"bisect", "--git", "repo", "--good", "HEAD~3", "--bad", "HEAD",
                                         "--out-dir", "b", "--install-extra", "setuptools"};
  const auto b = std::get<BisectOptions>(parse_args(base));
  EXPECT_EQ(b.git, "repo");
  EXPECT_TRUE(b.package.empty());
  EXPECT_EQ(b.with, std::vector<std::string>{"setuptools"});
  auto with_versions = base;
  with_versions.insert(with_versions.end(), {"--versions", "a,b"});
  EXPECT_EQ(refusal(with_versions),
            "bisect --git: the candidates are the commits between --good and --bad; leave out --versions");
  EXPECT_EQ(refusal({"bisect", "--good", "1.0", "--bad", "2.0", "--out-dir", "b"}),
            "bisect: give --package P (its releases are bisected) or --git REPO (its commits are)");
}

TEST(CliRecordedCommand, ReadsBackATypedRun) {
  const auto run = parse_run_command({"/usr/bin/jitbench", "run", "--shard", "1/2", "--cache-policy", "warm_cache",
                                      "--ceilings", "off", "--out-dir", "o"});
  ASSERT_TRUE(run.shard.has_value());
  EXPECT_EQ(run.shard->index, 1);
  EXPECT_EQ(run.cache_policies, std::vector<CachePolicy>{CachePolicy::WarmCache});
  EXPECT_EQ(run.ceilings, CeilingsMode::Off);
  EXPECT_EQ(run.out_dir, "o");
  const std::string not_run = "the recorded command is not a `jitbench run`";
  for (const std::vector<std::string>& recorded :
       {std::vector<std::string>{"jitbench", "run", "--resume", "d"}, {"jitbench", "plan"}, {"jitbench"}}) {
    try {
      parse_run_command(recorded);
      ADD_FAILURE() << "accepted: " << recorded.back();
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), not_run);
    }
  }
}

TEST(CliAffinity, ACpuListIsTypedOnceAndABadOneRefused) {
  EXPECT_EQ(run_of({"run", "--affinity", "0,2-3"}).affinity, (std::vector<int>{0, 2, 3}));
  EXPECT_TRUE(run_of({"run"}).affinity.empty());
  const Command m = parse_args({"measure", "f.py:g", "--affinity", "1"});
  ASSERT_TRUE(std::holds_alternative<MeasureOptions>(m));
  EXPECT_EQ(std::get<MeasureOptions>(m).run.affinity, std::vector<int>{1});
  EXPECT_EQ(refusal({"run", "--affinity", "3-1"}), "--affinity '3-1': the range '3-1' runs backwards (write LOW-HIGH)");
  EXPECT_NE(refusal({"run", "--affinity", "x"}).find("--affinity 'x': 'x' is not a CPU number or range"),
            std::string::npos);
  EXPECT_NE(refusal({"run", "--resume", "d", "--affinity", "0"}).find("give it alone"), std::string::npos);
  EXPECT_NE(refusal({"plan", "--affinity", "0"}), "");  // a plan starts no worker
}

TEST(CliDoctor, ReadOnlyOptions) {
  const Command c = parse_args({"doctor", "--json", "--strict", "--root", "/tmp", "--sample", "0"});
  ASSERT_TRUE(std::holds_alternative<DoctorOptions>(c));
  const auto& d = std::get<DoctorOptions>(c);
  EXPECT_TRUE(d.json && d.strict);
  EXPECT_EQ(d.root, "/tmp");
  EXPECT_EQ(d.sample_s, 0);
  EXPECT_FALSE(std::get<DoctorOptions>(parse_args({"doctor"})).strict);
  EXPECT_NE(refusal({"doctor", "--sample", "-1"}), "");
}

}  // namespace
}  // namespace jitbench
