#include "library/commit_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

namespace kwb::library::detail {

CommitLock::CommitLock(const std::string& gitdir, const std::string& branch) : m_path(gitdir + "kwb-commit.lock") {
  m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    m_error = "cannot open " + m_path + ": " + std::strerror(errno);
    return;
  }
  // Another kwb process commits for milliseconds; wait up to 30 s, then give up rather than
  // hold the repository (and the device lane that asked) forever behind a stopped process.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (::flock(m_fd, LOCK_EX | LOCK_NB) < 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      m_error = "cannot lock " + m_path + ": " + std::strerror(errno);
      return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      m_error = m_path + " is held by another process for more than 30 s (a stopped kwb?)";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling a lock held by another process
  }
  m_locked = true;
  std::error_code ec;
  std::filesystem::remove(gitdir + branch + ".lock", ec);
  std::filesystem::remove(gitdir + "index.lock", ec);
}

CommitLock::~CommitLock() {
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace kwb::library::detail
