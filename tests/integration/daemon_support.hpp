#pragma once
// A `kwb serve` child process for tests that drive the daemon over real HTTP on a free loopback
// port: DaemonProcess d; d.start({"--no-auth", "--time-budget-ms", "50"}); ... d.url() ...
// The daemon writes its port to a file once it listens; start() polls for that file (bounded)
// and fails early, with the daemon's log, if the child exits first.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace kwb::test {

class DaemonProcess {
 public:
  DaemonProcess() = default;
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;
  ~DaemonProcess() { stop(); }

  // Starts `kwb serve --port 0 --port-file F --workspace W ARGS...` and waits until it listens.
  // workspace: reuse one (e.g. to restart after a crash); empty: a fresh temporary folder.
  // Returns false with a message (and the daemon's log) in *error when it does not come up.
  bool start(const std::vector<std::string>& args, std::filesystem::path workspace = {}, std::string* error = nullptr,
             std::chrono::seconds timeout = std::chrono::seconds(120)) {
    stop();
    if (workspace.empty()) {
      char tmpl[] = "/tmp/kwb-daemon-ws-XXXXXX";
      if (!::mkdtemp(tmpl)) return fail(error, "mkdtemp failed");
      workspace = tmpl;
    }
    m_workspace = workspace;
    std::filesystem::create_directories(m_workspace);
    m_port_file = m_workspace / "serve.port";
    m_log = m_workspace / "serve.log";
    std::filesystem::remove(m_port_file);
    std::vector<std::string> argv_s = {(m_binary.empty() ? bin_dir() / "kwb" : m_binary).string(), "serve", "--port", "0", "--port-file",
                                       m_port_file.string(), "--workspace", m_workspace.string()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    // The decide stage's interleaved timing gets a short budget unless a test sets its own (it
    // still times at least min_blocks block pairs): these tests are about the daemon, not noise.
    if (std::find(args.begin(), args.end(), "--decide-budget-ms") == args.end())
      argv_s.insert(argv_s.end(), {"--decide-budget-ms", "300"});
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return fail(error, "fork failed");
    if (pid == 0) {  // child: log to the workspace, die with the test process
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      int fd = ::open(m_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    m_pid = pid;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        m_pid = -1;
        return fail(error, "kwb serve exited before listening (status " + std::to_string(status) + "):\n" + log());
      }
      if (std::filesystem::exists(m_port_file)) {
        m_port = std::atoi(read_text(m_port_file).c_str());
        if (m_port > 0) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop();
    return fail(error, "kwb serve did not write " + m_port_file.string() + " within " +
                           std::to_string(timeout.count()) + " s:\n" + log());
  }

  // Another kwb executable than the build's (a benchmark comparing builds); its runner is beside it.
  void use_binary(std::filesystem::path kwb) { m_binary = std::move(kwb); }

  int port() const { return m_port; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  const std::filesystem::path& workspace() const { return m_workspace; }
  pid_t pid() const { return m_pid; }
  bool running() const { return m_pid > 0; }
  std::string log() const { return m_log.empty() ? std::string() : read_text(m_log); }

  // SIGTERM (SIGKILL after `grace`), then waitpid. Returns the wait status, or -1 if not running.
  int stop(std::chrono::seconds grace = std::chrono::seconds(20)) { return end(SIGTERM, grace); }
  // kill -9, as a crash would (for recovery tests).
  int kill_hard() { return end(SIGKILL, std::chrono::seconds(0)); }

 private:
  static bool fail(std::string* error, const std::string& msg) {
    if (error) *error = msg;
    return false;
  }

  int end(int sig, std::chrono::seconds grace) {
    if (m_pid <= 0) return -1;
    ::kill(m_pid, sig);
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (::waitpid(m_pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    m_pid = -1;
    m_port = 0;
    return status;
  }

  pid_t m_pid = -1;
  int m_port = 0;
  std::filesystem::path m_workspace, m_port_file, m_log, m_binary;
};

}  // namespace kwb::test
