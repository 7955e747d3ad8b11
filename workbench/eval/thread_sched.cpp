#include "eval/thread_sched.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kwb::eval::detail {

// Involuntary context switches of the runner's main thread (the one that calls the kernel), -1
// when unreadable: a sample during which the thread was preempted measures the machine.
long involuntary_switches(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/status", int(pid), int(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char* at = std::strstr(buf, "nonvoluntary_ctxt_switches:");
  return at ? std::strtol(at + std::strlen("nonvoluntary_ctxt_switches:"), nullptr, 10) : -1;
}

// Nanoseconds thread `pid` (the runner's main thread, or this timing thread) has spent runnable
// but waiting for a CPU (the second field of /proc/<pid>/task/<pid>/schedstat, the scheduler's
// own account), -1 when unreadable. The scheduler adds a wait when the thread gets the CPU again,
// so a call's waits are all counted by the time the thread answers "done" (and this thread's by
// the time it has read the answer).
int64_t runqueue_wait_ns(pid_t pid) { return sched_times(pid).wait_ns; }

SchedTimes sched_times(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", int(pid), int(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return {};
  buf[n] = 0;
  long long run = 0, wait = 0;
  if (std::sscanf(buf, "%lld %lld", &run, &wait) != 2 || run < 0 || wait < 0) return {};
  return {int64_t(run), int64_t(wait)};
}

// True while the runner's main thread (the one that takes commands and calls the kernel) is
// running or runnable ('R' in /proc/<pid>/task/<pid>/stat).
bool main_thread_on_cpu(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", int(pid), int(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = 0;
  const char* close_paren = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
  return close_paren && close_paren[1] == ' ' && close_paren[2] == 'R';
}

}  // namespace kwb::eval::detail
