#pragma once
// Serialises commits of every kwb process on this repository: an flock on <gitdir>/kwb-commit.lock,
// released by the kernel when the holder dies. Holding it, a ref or index lock file left behind
// is known to be stale (only a kwb process killed mid-commit leaves one: other git tools must not
// commit to the library while kwb runs, docs/library.md) and is removed.
#include <string>

namespace kwb::library::detail {

class CommitLock {
 public:
  // Takes the lock (waiting up to 30 s), then removes the stale lock files; check locked().
  CommitLock(const std::string& gitdir, const std::string& branch);
  ~CommitLock();
  CommitLock(const CommitLock&) = delete;
  CommitLock& operator=(const CommitLock&) = delete;
  bool locked() const { return m_locked; }
  const std::string& error() const { return m_error; }

 private:
  std::string m_path, m_error;
  int m_fd = -1;
  bool m_locked = false;
};

}  // namespace kwb::library::detail
