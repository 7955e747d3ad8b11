// A started sandbox: waiting with a deadline, killing the whole tree, reporting the Outcome.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "launcher/kernel_log.hpp"
#include "launcher/process_impl.hpp"

namespace kwb::sandbox {

namespace {

using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Waits until `fd` is readable (for a pidfd: the process exited) or `timeout` passes.
bool wait_readable(int fd, milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::ceil<milliseconds>(deadline - clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30)));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) return false;
    if (left <= 0) return false;
  }
}

constexpr int k_p_pidfd = 3;  // P_PIDFD of <linux/wait.h>; glibc 2.36's idtype_t lacks it

// How long bwrap may take to notice its pid 1 died before it is killed itself.
constexpr milliseconds k_bwrap_exit_grace{5000};

// Opens a pidfd for `pid` and keeps it only if that process is a child of bwrap (`bwrap_pid`,
// which we have not reaped, so neither pid can have been recycled). bwrap forks exactly one
// child, the sandbox's pid 1. Unlike /proc/PID/ns/pid this still works while pid 1 is exiting.
int open_verified_init(pid_t pid, pid_t bwrap_pid) {
  int fd = detail::pidfd_open(pid);
  if (fd < 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto paren = stat.rfind(')');  // "pid (comm) state ppid ...": comm may hold anything
  char state = 0;
  long ppid = -1;
  if (paren == std::string::npos || std::sscanf(stat.c_str() + paren + 1, " %c %ld", &state, &ppid) != 2 ||
      ppid != bwrap_pid) {
    close(fd);
    return -1;
  }
  return fd;
}

// bwrap (0.8) reports the command's end through its own exit status: exit code c when the
// command exited with c, and 128+s when it was killed by signal s (both its pid-1 init and its
// monitor propagate a status this way; measured: `kill -SEGV $$` gives 139, `kill -KILL $$` 137).
// So exit codes 129..192 are read back as signal c-128: a command that calls exit(139) itself
// reads as SIGSEGV, which is harmless (it only hurts its own verdict). When bwrap itself is killed
// (kill(), wall-clock limit) its wait status carries the signal directly. bwrap's own setup
// failures exit with 1 and explain themselves on stderr.
void decode_status(int status, Outcome& out) {
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    if (code > 128 && code <= 128 + 64) {
      out.signal = code - 128;
    } else {
      out.exit_code = code;
    }
  }
}

// Pidfds of the processes whose argv[0] is `name` (bwrap's random one, which the sandbox's pid 1
// inherits as bwrap's fork), other than bwrap itself. A pid read from /proc may be recycled
// meanwhile: each process's name is checked again after its pidfd is open.
std::vector<int> processes_named(const std::string& name, pid_t bwrap) {
  std::vector<int> fds;
  auto argv0 = [](const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
    std::string first;
    std::getline(in, first, '\0');
    return first;
  };
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::stol(pid) == bwrap || argv0(pid) != name) continue;
    int fd = detail::pidfd_open(static_cast<pid_t>(std::stol(pid)));
    if (fd < 0) continue;
    if (argv0(pid) == name) {
      fds.push_back(fd);
    } else {
      close(fd);
    }
  }
  return fds;
}

}  // namespace

Process::Impl::~Impl() {
  drain.reset();  // first: its overflow callback uses pidfd and cgroup
  for (int fd : {pidfd, status_fd, init_pidfd, kmsg_fd}) {
    if (fd >= 0) close(fd);
  }
}

void Process::Impl::read_status(Until until, milliseconds bound) {
  auto deadline = clock::now() + bound;
  auto done = [&] { return until == Until::report && status_text.find('\n') != std::string::npos; };
  char buf[4096];
  while (status_fd >= 0 && !done()) {
    ssize_t n = read(status_fd, buf, sizeof buf);
    if (n > 0) {
      status_text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && until != Until::now) {
      auto left = std::chrono::ceil<milliseconds>(deadline - clock::now());
      if (left.count() > 0 && wait_readable(status_fd, left)) continue;
    }
    if (n == 0 || (n < 0 && errno != EAGAIN)) {  // end-of-file: bwrap is gone
      close(status_fd);
      status_fd = -1;
    }
    break;
  }
  // The first line is {"child-pid": N, ...}, written by bwrap right after it cloned pid 1.
  auto newline = status_text.find('\n');
  if (status_parsed || newline == std::string::npos) return;
  status_parsed = true;
  auto report = nlohmann::json::parse(status_text.substr(0, newline), nullptr, false);
  if (report.is_object() && report.contains("child-pid") && report["child-pid"].is_number_integer()) {
    init_pidfd = open_verified_init(report["child-pid"].get<pid_t>(), pid);
    if (init_pidfd >= 0) init_pid = report["child-pid"].get<pid_t>();
  }
}

void Process::Impl::kill_locked(bool hard) {
  if (reaped) return;
  kill_requested = true;
  read_status(Until::now, milliseconds(0));
  // Killing pid 1 takes the whole pid namespace with it; bwrap sees it die and exits with 128+9
  // by itself. Killing bwrap first would leave pid 1 to --die-with-parent, asynchronously, so
  // bwrap is killed only when pid 1 is not known or when bwrap does not exit in time.
  if (init_pidfd >= 0) detail::pidfd_kill(init_pidfd);
  if (init_pidfd < 0 || hard) {
    ::kill(-pid, SIGKILL);  // bwrap's group: pid is unreaped, so the group id cannot be recycled
    detail::pidfd_kill(pidfd);
    if (cgroup) cgroup->kill_all();  // whatever else is left of the tree
  }
}

Process::Process(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Process::~Process() {
  if (!m_impl) return;
  {
    std::lock_guard lock(m_impl->mutex);
    if (m_impl->outcome) return;
    m_impl->kill_locked(false);
  }
  wait(milliseconds(0));
}

pid_t Process::pid() const { return m_impl->pid; }

pid_t Process::command_pid() {
  std::lock_guard lock(m_impl->mutex);
  Impl& s = *m_impl;
  if (s.reaped || s.init_pidfd < 0) return -1;
  // pid 1 is alive (its pidfd is not readable), so its pid and its children's are not recycled.
  if (wait_readable(s.init_pidfd, milliseconds(0))) return -1;
  std::ifstream in("/proc/" + std::to_string(s.init_pid) + "/task/" + std::to_string(s.init_pid) + "/children");
  long child = -1;
  if (in >> child) return static_cast<pid_t>(child);
  return -1;
}

bool Process::process_limit_reached() {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->cgroup && m_impl->cgroup->process_limit_hit();
}

std::vector<std::string> Process::decoys_opened() {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->decoys ? m_impl->decoys->opened() : std::vector<std::string>{};
}

std::vector<pid_t> Process::members() {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->cgroup ? m_impl->cgroup->members() : std::vector<pid_t>{};
}

bool Process::running() {
  std::lock_guard lock(m_impl->mutex);
  if (m_impl->reaped) return false;
  return !wait_readable(m_impl->pidfd, milliseconds(0));
}

void Process::kill() {
  std::lock_guard lock(m_impl->mutex);
  m_impl->kill_locked(false);
}

Outcome Process::wait(milliseconds timeout) {
  Impl& s = *m_impl;
  {
    std::lock_guard lock(s.mutex);
    if (s.outcome) return *s.outcome;
  }
  Outcome out;
  if (!wait_readable(s.pidfd, timeout)) {
    out.timed_out = true;
    kill();
  }
  bool killed;
  {
    std::lock_guard lock(s.mutex);
    killed = s.kill_requested;
  }
  if (killed && !wait_readable(s.pidfd, k_bwrap_exit_grace)) {
    std::lock_guard lock(s.mutex);
    s.kill_locked(true);
  }
  std::lock_guard lock(s.mutex);
  if (s.outcome) return *s.outcome;  // another thread waited meanwhile
  // bwrap has exited. Whatever of the sandbox is left must go now, on every path: when bwrap was
  // killed from outside right after it cloned pid 1 (before pid 1 armed --die-with-parent, or
  // before bwrap reported pid 1's pid to us), pid 1 and the command would otherwise live on under
  // the host's init. Killing pid 1 takes its pid namespace; when its pid is not known, pid 1 is
  // found by bwrap's random argv[0], which it inherited (it has a session of its own, so bwrap's
  // process group does not reach it).
  s.read_status(Impl::Until::now, milliseconds(0));
  std::vector<int> strays;
  if (s.init_pidfd < 0) strays = processes_named(s.name, s.pid);
  for (int fd : strays) detail::pidfd_kill(fd);
  if (s.init_pidfd >= 0) detail::pidfd_kill(s.init_pidfd);  // bwrap is gone: nothing may stay
  if (s.cgroup) s.cgroup->kill_all();
  int status = 0;
  while (waitpid(s.pid, &status, 0) < 0 && errno == EINTR) {
  }
  s.reaped = true;
  out.wall_ms = std::chrono::duration<double, std::milli>(clock::now() - s.start).count();
  decode_status(status, out);
  const bool bwrap_signalled = WIFSIGNALED(status);
  for (int fd : strays) {
    wait_readable(fd, milliseconds(10'000));
    close(fd);
  }
  // bwrap is gone, so its status pipe is complete. bwrap's monitor learns pid 1's exit status
  // over an eventfd and exits without waiting for it, so pid 1 may still be tearing down the pid
  // namespace — or, when bwrap itself had to be killed, still running (--die-with-parent is
  // asynchronous). Kill it if we were killing, and wait until it has exited: pid 1 finishes
  // exiting only after every other process of its namespace, so then nothing of the sandbox
  // remains. It is re-parented to the host's init; if that is us (the daemon runs as pid 1 in a
  // container, or is a subreaper), reap it here, otherwise waitid fails with ECHILD, harmlessly.
  s.read_status(Impl::Until::eof, milliseconds(1000));
  if (s.init_pidfd >= 0) {
    detail::pidfd_kill(s.init_pidfd);  // known only now when bwrap's report came late
    if (wait_readable(s.init_pidfd, milliseconds(10'000))) {
      siginfo_t info{};
      waitid(static_cast<idtype_t>(k_p_pidfd), static_cast<id_t>(s.init_pidfd), &info, WEXITED | WNOHANG);
    }
  }
  if (s.drain) {  // null only when spawn() failed to start the drain thread
    s.drain->finish(milliseconds(2000));
    auto so = s.drain->take_stdout();
    auto se = s.drain->take_stderr();
    out.stdout_text = std::move(so.text);
    out.stdout_truncated = so.truncated;
    out.stderr_text = std::move(se.text);
    out.stderr_truncated = se.truncated;
    out.output_limit_hit = s.profile.output_overflow_fails && s.drain->overflowed();
  }
  out.profile = s.profile;
  out.limits = s.limits;
  out.cgroup_enforced = s.cgroup != nullptr;
  if (s.cgroup) {
    // Nothing of the sandbox runs any more (pid 1 has exited); read the counters, then kill
    // any straggler and remove the cgroup.
    auto usage = s.cgroup->usage();
    out.memory_limit_hit = usage.oom_killed;
    out.process_limit_hit = usage.process_limit_hit;
    out.memory_peak_bytes = usage.memory_peak;
    s.cgroup.reset();
  }
  // bwrap passes the command's fate on as an exit code (decode_status); bwrap itself dying of a
  // signal that neither kill(), the output cap nor the OOM killer sent came from outside the
  // sandbox: nothing inside can signal it.
  out.killed_from_outside = bwrap_signalled && !s.kill_requested && !(s.drain && s.drain->overflowed()) &&
                            !out.memory_limit_hit;
  if (s.decoys) out.decoys_opened = s.decoys->opened();
  if (out.signal == SIGSYS) out.denied_syscall = detail::seccomp_kills_since(s.kmsg_fd, s.pid);
  if (s.kmsg_fd >= 0) {
    close(s.kmsg_fd);
    s.kmsg_fd = -1;
  }
  s.outcome = out;
  return out;
}

}  // namespace kwb::sandbox
