#pragma once
// Helpers for tests that drive the real `kwb` binary.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::test {

inline std::filesystem::path source_dir() { return KWB_TEST_SOURCE_DIR; }
inline std::filesystem::path bin_dir() { return KWB_TEST_BIN_DIR; }

// One workspace per test process, so the CPU calibration is measured once per process.
inline const std::filesystem::path& workspace() {
  static const std::filesystem::path dir = [] {
    char tmpl[] = "/tmp/kwb-test-ws-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    return std::filesystem::path(d ? d : "/tmp/kwb-test-ws");
  }();
  return dir;
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

// Runs a shell command line, capturing stdout (stderr goes to the test log).
inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline std::string kwb_command(const std::string& args) {
  return (bin_dir() / "kwb").string() + " " + args + " --workspace " + shell_quote(workspace().string());
}

struct EvalResult {
  int exit_code = -1;
  nlohmann::json verdict;
  std::string raw;
};

// `env`: assignments placed before the command, e.g. "KWB_LIBCLANG=off".
inline EvalResult kwb_eval_json(const std::string& source, const std::string& extra, const std::string& env = "") {
  EvalResult e;
  auto r = run_command((env.empty() ? "" : "env " + env + " ") + kwb_command("eval " + shell_quote(source) + " --json " + extra));
  e.exit_code = r.exit_code;
  e.raw = r.out;
  e.verdict = nlohmann::json::parse(r.out, nullptr, false);
  return e;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace kwb::test
