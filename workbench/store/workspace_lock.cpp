#include "store/workspace_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kwb::store {

namespace {

std::string read_all(int fd) {
  std::string out;
  char buf[512];
  ssize_t n;
  off_t at = 0;
  while ((n = ::pread(fd, buf, sizeof buf, at)) > 0 && out.size() < 4096) {
    out.append(buf, size_t(n));
    at += n;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// The pid a holder's description names ("kwb serve (pid 123, ..."), or 0.
pid_t holder_pid(const std::string& who) {
  auto at = who.find("(pid ");
  if (at == std::string::npos) return 0;
  return pid_t(std::strtol(who.c_str() + at + 5, nullptr, 10));
}

// Whether a lock held for a process that no longer exists may yet come free: its children forked
// before it died (a sandbox being spawned) hold the same open file until they exec or die, which
// a daemon restarted at once after a kill -9 meets (seen under load: tests/integration/
// test_daemon_crash.cpp). Waits for that, at most 5 s.
bool wait_for_dead_holder(int fd, const std::string& who) {
  pid_t pid = holder_pid(who);
  if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) return false;
  for (int i = 0; i < 250; ++i) {
    ::usleep(20000);
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
  }
  return false;
}

}  // namespace

util::Result<WorkspaceLock> WorkspaceLock::acquire(const std::filesystem::path& workspace, const std::string& holder) {
  std::error_code ec;
  std::filesystem::create_directories(workspace, ec);
  auto file = workspace / "daemon.lock";
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return util::fail(file.string(), std::string("cannot open the workspace lock: ") + std::strerror(errno));
  int e = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
  if (e == EWOULDBLOCK && wait_for_dead_holder(fd, read_all(fd))) e = 0;
  if (e != 0) {
    std::string who = read_all(fd);
    ::close(fd);
    if (e == EWOULDBLOCK)
      return util::fail(util::ErrorKind::busy, workspace.string(),
                        "this workspace is in use by " + (who.empty() ? std::string("another process") : who) +
                            " (lock " + file.string() +
                            "); stop that process first, or give this one another --workspace");
    return util::fail(file.string(), std::string("cannot lock the workspace: ") + std::strerror(e));
  }
  WorkspaceLock lock(fd, file);
  lock.describe(holder);
  return lock;
}

void WorkspaceLock::describe(const std::string& holder) {
  if (m_fd < 0) return;
  std::string line = holder + "\n";
  if (::ftruncate(m_fd, 0) == 0) (void)!::pwrite(m_fd, line.data(), line.size(), 0);
}

WorkspaceLock::~WorkspaceLock() {
  if (m_fd < 0) return;
  ::ftruncate(m_fd, 0);
  ::close(m_fd);  // releases the lock
}

}  // namespace kwb::store
