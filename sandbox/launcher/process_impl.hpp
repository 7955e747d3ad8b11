#pragma once
// Internal state of a started sandbox (shared by spawn.cpp and process.cpp).
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <csignal>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "launcher/cgroup.hpp"
#include "launcher/decoys.hpp"
#include "launcher/output_drain.hpp"
#include "launcher/sandbox.hpp"

namespace kwb::sandbox {

namespace detail {
// glibc 2.36's <sys/pidfd.h> declares these without extern "C", so C++ cannot link them.
inline int pidfd_open(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }
inline int pidfd_kill(int pidfd) { return static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0)); }
}  // namespace detail

struct Process::Impl {
  pid_t pid = -1;       // bwrap (leader of its own session and process group)
  int pidfd = -1;       // pidfd of bwrap: readable once it exits; signals never hit a reused pid
  int status_fd = -1;   // read end of bwrap's --json-status-fd (O_NONBLOCK)
  std::chrono::steady_clock::time_point start;
  std::unique_ptr<detail::OutputDrain> drain;
  Profile profile;
  std::unique_ptr<detail::JobCgroup> cgroup;  // null when limits fell back to rlimits
  std::string limits;                         // Outcome::limits
  int kmsg_fd = -1;                           // /dev/kmsg from spawn on (kernel_log.hpp), or -1
  std::string name;                           // bwrap's argv[0], which pid 1 inherits (spawn.cpp)
  std::unique_ptr<detail::Decoys> decoys;     // Profile::decoys, watched; null without

  std::mutex mutex;          // guards everything below (kill() may race with wait())
  std::string status_text;   // what bwrap wrote to the status fd so far
  bool status_parsed = false;
  int init_pidfd = -1;       // the sandbox's pid 1 (bwrap's init) once reported and verified
  pid_t init_pid = -1;       // its host pid (valid while init_pidfd is open and it runs)
  bool reaped = false;
  bool kill_requested = false;
  std::optional<Outcome> outcome;

  ~Impl();
  // Reads what bwrap has written to the status fd, waiting at most `bound` for the first report
  // line or for end-of-file (bwrap gone). Finds the sandbox's pid 1 from the first report, which
  // must happen while bwrap is alive: spawn() waits for it. Call with `mutex` held (or before the
  // Process is shared).
  enum class Until { now, report, eof };
  void read_status(Until until, std::chrono::milliseconds bound);
  // SIGKILL to the sandbox's pid 1 (taking the pid namespace with it); also to bwrap and its
  // process group when `hard` or when pid 1 is not known yet. Call with `mutex` held.
  void kill_locked(bool hard);
};

}  // namespace kwb::sandbox
