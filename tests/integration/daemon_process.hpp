#pragma once
// A real `kwb serve` child process on a free loopback port with its own workspace, for tests.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace kwb::test {

class DaemonProcess {
 public:
  // Starts `kwb serve --port 0 --port-file ... --workspace <dir>` plus `args`; waits until the
  // port file appears (bounded), which the daemon writes once it is listening.
  explicit DaemonProcess(std::vector<std::string> args, std::filesystem::path workspace = {}) {
    if (workspace.empty()) {
      char tmpl[] = "/tmp/kwb-daemon-XXXXXX";
      workspace = ::mkdtemp(tmpl);
    }
    m_workspace = workspace;
    start(std::move(args));
  }
  ~DaemonProcess() { stop(SIGTERM); }

  void start(std::vector<std::string> args) {
    m_args = args;
    auto port_file = m_workspace / "port";
    std::filesystem::remove(port_file);
    std::vector<std::string> argv = {(bin_dir() / "kwb").string(), "serve", "--port", "0", "--port-file",
                                     port_file.string(), "--workspace", m_workspace.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    m_pid = ::fork();
    if (m_pid == 0) {
      std::vector<char*> cargs;
      for (auto& a : argv) cargs.push_back(a.data());
      cargs.push_back(nullptr);
      std::string log = (m_workspace / "serve.log").string();
      FILE* f = std::freopen(log.c_str(), "a", stdout);
      (void)f;
      ::dup2(::fileno(stdout), 2);
      ::execv(cargs[0], cargs.data());
      ::_exit(127);
    }
    for (int i = 0; i < 600 && !std::filesystem::exists(port_file); ++i) {
      int st;
      if (::waitpid(m_pid, &st, WNOHANG) == m_pid) {
        m_pid = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));  // polling for readiness, bounded
    }
    m_port = std::stoi(read_text(port_file));
  }

  // Stops the daemon with `sig` (SIGKILL for crash tests) and reaps it.
  void stop(int sig) {
    if (m_pid <= 0) return;
    ::kill(m_pid, sig);
    int st;
    ::waitpid(m_pid, &st, 0);
    m_pid = -1;
  }
  void restart() {
    stop(SIGTERM);
    start(m_args);
  }

  bool running() const { return m_pid > 0 && m_port > 0; }
  int port() const { return m_port; }
  const std::filesystem::path& workspace() const { return m_workspace; }
  std::string log() const { return read_text(m_workspace / "serve.log"); }

 private:
  std::filesystem::path m_workspace;
  std::vector<std::string> m_args;
  pid_t m_pid = -1;
  int m_port = 0;
};

}  // namespace kwb::test
