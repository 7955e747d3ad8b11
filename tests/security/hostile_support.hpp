#pragma once
// Helpers for the hostile-candidate suite: running the real `kwb` with a chosen environment and
// both output streams captured, and looking at the host afterwards (children left behind,
// processes mentioning a path, job cgroups, files). Self-contained on purpose (the integration
// suite has its own helpers; test folders do not include each other).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace kwb::sectest {

namespace fs = std::filesystem;

// Overridable from the environment, so the suite built here can run on another machine.
inline fs::path source_dir() {
  const char* e = std::getenv("KWB_TEST_SOURCE_DIR");
  return e && *e ? e : KWB_TEST_SOURCE_DIR;
}
inline fs::path bin_dir() {
  const char* e = std::getenv("KWB_TEST_BIN_DIR");
  return e && *e ? e : KWB_TEST_BIN_DIR;
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

inline std::string random_hex(size_t bytes) {
  std::random_device rd;
  std::string out;
  const char* digits = "0123456789abcdef";
  for (size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out += digits[v >> 4];
    out += digits[v & 15];
  }
  return out;
}

inline fs::path make_temp_dir(const std::string& prefix) {
  std::string templ = "/tmp/" + prefix + "XXXXXX";
  char* made = ::mkdtemp(templ.data());
  return made ? fs::path(made) : fs::path();
}

struct KwbRun {
  pid_t pid = -1;
  bool exited = false;  // exited normally (not killed by a signal)
  int exit_code = -1;
  int signal = 0;
  bool hung = false;  // killed by the test's watchdog
  std::string out, err;
  double ms = 0;
};

// Runs bin_dir()/kwb with `args`, the test's environment plus `extra_env` ("NAME=VALUE"), stdout
// and stderr captured through files in `scratch`. A watchdog kills it after `limit`.
inline KwbRun run_kwb(const std::vector<std::string>& args, const std::vector<std::string>& extra_env,
                      const fs::path& scratch, std::chrono::seconds limit = std::chrono::seconds(120)) {
  KwbRun r;
  std::string exe = (bin_dir() / "kwb").string();
  std::vector<std::string> argv_s{exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  fs::path out = scratch / "kwb.stdout", err = scratch / "kwb.stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  auto start = std::chrono::steady_clock::now();
  int rc = posix_spawn(&r.pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.err = "posix_spawn failed: " + std::to_string(rc);
    return r;
  }
  int status = 0;
  for (;;) {
    pid_t w = waitpid(r.pid, &status, WNOHANG);
    if (w == r.pid) break;
    if (std::chrono::steady_clock::now() - start > limit) {
      r.hung = true;
      kill(r.pid, SIGKILL);
      waitpid(r.pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.exited = WIFEXITED(status);
  r.exit_code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

// Reaps zombies re-parented to this process (it is a child subreaper), then returns the pids of
// live processes whose parent is this process: anything a sandbox left behind ends up here.
inline std::vector<pid_t> reap_and_list_children() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  std::vector<pid_t> children;
  std::string me = std::to_string(getpid());
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = read_text(e.path() / "stat");
    auto paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(paren + 2));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == me && state != "Z") children.push_back(std::stoi(name));
  }
  return children;
}

// Processes whose command line contains `text` (e.g. a workspace path in bwrap's arguments).
inline std::vector<std::string> processes_mentioning(const std::string& text) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || name == std::to_string(getpid())) continue;
    std::string cmdline = read_text(e.path() / "cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(text) != std::string::npos) found.push_back(name + ": " + cmdline);
  }
  return found;
}

// Job cgroups that process `pid` made and did not remove (launcher/cgroup.hpp names them
// job-<pid>-<n> under a "kwb" folder of each hierarchy).
inline std::vector<std::string> leftover_cgroups(pid_t pid) {
  std::vector<std::string> found;
  std::string prefix = "job-" + std::to_string(pid) + "-";
  for (const char* parent : {"/sys/fs/cgroup/kwb", "/sys/fs/cgroup/memory/kwb", "/sys/fs/cgroup/pids/kwb"}) {
    std::error_code ec;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().starts_with(prefix)) found.push_back(it->path().string());
  }
  return found;
}

// Every path under `root` (relative, symlinks not followed), for before/after comparisons.
inline std::set<std::string> tree(const fs::path& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec))
    out.insert(fs::relative(it->path(), root, ec).string());
  return out;
}

// Entries whose name contains `needle` directly in each of `dirs`.
inline std::vector<std::string> names_containing(const std::vector<fs::path>& dirs, const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& d : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().find(needle) != std::string::npos) found.push_back(it->path().string());
  }
  return found;
}

}  // namespace kwb::sectest
