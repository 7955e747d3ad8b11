#pragma once
// The exclusive lock of a workspace (workspace/daemon.lock, flock): one `kwb serve` (or `kwb
// restore`) per workspace. The holder writes who it is into the file (pid, port, start time), so
// the second one can name the first. The lock goes with the process, however it ends.
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace kwb::store {

class WorkspaceLock {
 public:
  // Fails with ErrorKind::busy, naming the holder, when another process holds it.
  static util::Result<WorkspaceLock> acquire(const std::filesystem::path& workspace, const std::string& holder);
  WorkspaceLock(WorkspaceLock&& o) noexcept : m_fd(o.m_fd), m_file(std::move(o.m_file)) { o.m_fd = -1; }
  WorkspaceLock(const WorkspaceLock&) = delete;
  ~WorkspaceLock();
  // Rewrites the holder line, e.g. once the daemon knows its port.
  void describe(const std::string& holder);
  const std::filesystem::path& file() const { return m_file; }

 private:
  WorkspaceLock(int fd, std::filesystem::path file) : m_fd(fd), m_file(std::move(file)) {}
  int m_fd = -1;
  std::filesystem::path m_file;
};

}  // namespace kwb::store
