// kwb-sandbox: runs one command through kwb::sandbox and prints the Outcome as JSON.
//   kwb-sandbox [--profile compile|run] [--job DIR] [--job-rw] [--decoys] [--wall-ms N] [--memory-mb N]
//               [--max-processes N] [--cgroup-parent NAME|off] [--ro HOST:INSIDE]...
//               [--rw HOST:INSIDE]... [--env NAME=VALUE]... [--gpu] [--bwrap PATH]
//               [--repeat N [--baseline]] [--print-argv] -- CMD ARGS...
// Without --job a temporary job dir is made under /tmp and removed afterwards. --repeat runs the
// command N times and adds launch-time statistics (the sandbox benchmark, docs/benchmarks/
// sandbox.md); --baseline also runs CMD (a host path) N times without the sandbox and reports
// the difference of the medians as the sandbox's overhead. Exit status: 0 when the (last)
// outcome is ok, 1 when not, 2 on usage or launch errors.
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "launcher/sandbox.hpp"

namespace {

using kwb::sandbox::Request;

constexpr const char* k_usage =
    "usage: kwb-sandbox [--profile compile|run] [--job DIR] [--job-rw] [--wall-ms N] [--memory-mb N]\n"
    "                   [--max-processes N] [--cgroup-parent NAME|off] [--ro HOST:INSIDE]...\n"
    "                   [--rw HOST:INSIDE]... [--env NAME=VALUE]... [--gpu] [--decoys] [--bwrap PATH]\n"
    "                   [--repeat N [--baseline]] [--print-argv] -- CMD ARGS...\n";

struct Options {
  Request req;
  int repeat = 1;
  bool print_argv = false;
  bool baseline = false;
};

int usage_error(const std::string& message) {
  std::cerr << "kwb-sandbox: " << message << "\n" << k_usage;
  return 2;
}

bool parse_int(std::string_view text, long long& value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// Returns an error message, or "" when the arguments were fine.
std::string parse(int argc, char** argv, Options& o) {
  o.req.profile = kwb::sandbox::run_profile();
  o.req.env = kwb::sandbox::default_env();
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      o.req.argv.assign(argv + i + 1, argv + argc);
      return o.req.argv.empty() ? "no command after --" : "";
    }
    if (arg == "--gpu") { o.req.profile.gpu = true; continue; }
    if (arg == "--job-rw") { o.req.profile.job_writable = true; continue; }
    if (arg == "--decoys") { o.req.profile.decoys = kwb::sandbox::candidate_decoys(); continue; }
    if (arg == "--print-argv") { o.print_argv = true; continue; }
    if (arg == "--baseline") { o.baseline = true; continue; }
    if (arg == "-h" || arg == "--help") return "help";
    if (i + 1 >= argc) return std::string(arg) + " needs a value";
    std::string value = argv[++i];
    long long number = 0;
    if (arg == "--profile") {
      bool gpu = o.req.profile.gpu;
      if (value == "compile") o.req.profile = kwb::sandbox::compile_profile();
      else if (value == "run") o.req.profile = kwb::sandbox::run_profile();
      else return "--profile must be compile or run, got '" + value + "'";
      o.req.profile.gpu = gpu;
    } else if (arg == "--cgroup-parent") {
      kwb::sandbox::set_cgroup_parent(value);
    } else if (arg == "--memory-mb" || arg == "--max-processes") {
      if (!parse_int(value, number) || number < 0) return std::string(arg) + " needs a non-negative integer";
      if (arg == "--memory-mb") o.req.profile.memory_bytes = number << 20;
      else o.req.profile.max_processes = static_cast<int>(number);
    } else if (arg == "--job") {
      o.req.job_dir = value;
    } else if (arg == "--bwrap") {
      o.req.bwrap = value;
    } else if (arg == "--wall-ms" || arg == "--repeat") {
      if (!parse_int(value, number) || number <= 0) return std::string(arg) + " needs a positive integer";
      if (arg == "--repeat") o.repeat = static_cast<int>(number);
      else o.req.profile.wall = std::chrono::milliseconds(number);
    } else if (arg == "--ro" || arg == "--rw") {
      auto colon = value.rfind(':');
      if (colon == std::string::npos) return std::string(arg) + " needs HOST:INSIDE, got '" + value + "'";
      o.req.binds.push_back({value.substr(0, colon), value.substr(colon + 1), arg == "--rw"});
    } else if (arg == "--env") {
      auto eq = value.find('=');
      if (eq == std::string::npos) return "--env needs NAME=VALUE, got '" + value + "'";
      std::string name = value.substr(0, eq);
      std::erase_if(o.req.env, [&](const auto& kv) { return kv.first == name; });
      o.req.env.emplace_back(name, value.substr(eq + 1));
    } else {
      return "unknown option " + std::string(arg);
    }
  }
  return "missing -- CMD";
}

nlohmann::json to_json(const kwb::sandbox::Outcome& o) {
  auto b = kwb::sandbox::breach(o, "the command");
  return {{"exit_code", o.exit_code}, {"signal", o.signal}, {"timed_out", o.timed_out},
          {"ok", o.ok()}, {"wall_ms", o.wall_ms}, {"stdout", o.stdout_text}, {"stderr", o.stderr_text},
          {"stdout_truncated", o.stdout_truncated}, {"stderr_truncated", o.stderr_truncated},
          {"memory_limit_hit", o.memory_limit_hit}, {"process_limit_hit", o.process_limit_hit},
          {"output_limit_hit", o.output_limit_hit}, {"memory_peak_bytes", o.memory_peak_bytes},
          {"denied_syscall", o.denied_syscall}, {"decoys_opened", o.decoys_opened}, {"cgroup", o.cgroup_enforced}, {"limits", o.limits},
          {"breach", b.reason + (b.note.empty() ? "" : (b.reason.empty() ? "" : "; ") + b.note)}};
}

nlohmann::json stats(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1))]; };
  return {{"n", ms.size()}, {"min", ms.front()}, {"p10", at(0.1)}, {"median", at(0.5)},
          {"p90", at(0.9)}, {"max", ms.back()}};
}

// Wall times of `argv` run `n` times directly (posix_spawn + waitpid), no sandbox; empty when it
// cannot be started.
std::vector<double> plain_runs(const std::vector<std::string>& args, int n) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp) != 0) return {};
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (std::string error = parse(argc, argv, o); !error.empty()) {
    if (error == "help") {
      std::cout << k_usage;
      return 0;
    }
    return usage_error(error);
  }
  std::string temp_job;
  if (o.req.job_dir.empty()) {
    char templ[] = "/tmp/kwb-sandbox-XXXXXX";
    if (!mkdtemp(templ)) return usage_error("cannot create a temporary job dir under /tmp");
    temp_job = templ;
    o.req.job_dir = temp_job;
  }
  if (o.print_argv) {
    for (const auto& a : kwb::sandbox::bwrap_argv(o.req, {-1, -1, "/dev"})) std::cerr << a << "\n";
  }
  std::vector<double> launch_ms;
  kwb::util::Result<kwb::sandbox::Outcome> outcome = kwb::util::fail("", "");
  for (int i = 0; i < o.repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    outcome = kwb::sandbox::run(o.req);
    launch_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!outcome) break;
  }
  if (!temp_job.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_job, ec);
  }
  if (!outcome) {
    std::cerr << "kwb-sandbox: " << outcome.error().what() << "\n";
    return 2;
  }
  nlohmann::json result = to_json(*outcome);
  if (o.repeat > 1) result["run_ms"] = stats(launch_ms);
  if (o.repeat > 1 && o.baseline) {
    auto plain = plain_runs(o.req.argv, o.repeat);
    if (!plain.empty()) {
      result["plain_ms"] = stats(plain);
      result["overhead_ms"] = result["run_ms"]["median"].get<double>() - result["plain_ms"]["median"].get<double>();
    }
  }
  std::cout << result.dump(2) << "\n";
  return outcome->ok() ? 0 : 1;
}
