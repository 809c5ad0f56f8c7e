#include "run/replay.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace jitbench {
namespace {
using nlohmann::json;

json to_json(const ProcessResult& p) {
  return {{"kind", to_string(p.kind)}, {"exit_code", p.exit_code}, {"signal", p.signal},
          {"spawn_error", p.spawn_error}, {"spawn_ns", p.spawn_ns}, {"wall_s", p.wall_s},
          {"max_rss_kib", p.max_rss_kib}, {"pre_exec_rss_kib", p.pre_exec_rss_kib}, {"user_s", p.user_s}, {"sys_s", p.sys_s},
          {"lines", p.lines}, {"trailing", p.trailing}, {"channel_overflow", p.channel_overflow},
          {"interrupted", p.interrupted}};
}

ExitKind exit_kind(const std::string& s) {
  for (auto k : {ExitKind::Exited, ExitKind::Signaled, ExitKind::TimedOut, ExitKind::SpawnFailed})
    if (s == to_string(k)) return k;
  throw std::runtime_error("unknown exit kind '" + s + "' in a recording");
}

ProcessResult from_json(const json& j) {
  ProcessResult p;
  p.kind = exit_kind(j.at("kind").get<std::string>());
  p.exit_code = j.at("exit_code").get<int>();
  p.signal = j.at("signal").get<int>();
  p.spawn_error = j.at("spawn_error").get<std::string>();
  p.spawn_ns = j.at("spawn_ns").get<long long>();
  p.wall_s = j.at("wall_s").get<double>();
  p.max_rss_kib = j.at("max_rss_kib").get<long>();
  p.pre_exec_rss_kib = j.value("pre_exec_rss_kib", 0L);  // recordings before the field: unread
  p.user_s = j.at("user_s").get<double>();
  p.sys_s = j.at("sys_s").get<double>();
  p.lines = j.at("lines").get<std::vector<std::string>>();
  p.trailing = j.at("trailing").get<std::string>();
  p.channel_overflow = j.at("channel_overflow").get<bool>();
  p.interrupted = j.at("interrupted").get<bool>();
  return p;
}
}  // namespace

std::string run_key(const std::vector<std::string>& argv) {
  std::string backend, workload, n, mode;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--backend") backend = argv[i + 1];
    if (argv[i] == "--workload") workload = argv[i + 1];
    if (argv[i] == "--n") n = argv[i + 1];
    if (argv[i] == "--mode") mode = argv[i + 1];
  }
  return fmt::format("{} {} {} {}", backend, workload, n, mode);
}

RecordingLauncher::RecordingLauncher(ProcessLauncher& inner, const std::filesystem::path& file)
    : inner_(inner), out_(file, std::ios::app) {}

ProcessResult RecordingLauncher::launch(const SpawnSpec& spec) {
  auto result = inner_.launch(spec);
  out_ << json{{"key", run_key(spec.argv)}, {"result", to_json(result)}}.dump() << "\n";
  out_.flush();
  return result;
}

ReplayLauncher::ReplayLauncher(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the recording " + file.string());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = json::parse(line);
    records_.push_back({j.at("key").get<std::string>(), from_json(j.at("result"))});
  }
}

ProcessResult ReplayLauncher::launch(const SpawnSpec& spec) {
  const auto key = run_key(spec.argv);
  if (next_ >= records_.size()) throw std::runtime_error("the recording has no run left for " + key);
  const auto& r = records_[next_++];
  if (r.key != key)
    throw std::runtime_error(fmt::format("the recording's next run is '{}', but '{}' was asked for", r.key, key));
  return r.result;
}

}  // namespace jitbench
