// runner_thread_state.hpp: a thread's account in /proc/<pid>/task/<pid>/ (status, schedstat, stat).
#include "eval/runner_thread_state.hpp"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "eval/runner_timing_util.hpp"

namespace kwb::eval::detail {

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

int64_t runqueue_wait_ns(pid_t pid) { return sched_times(pid).wait_ns; }

// The bound of the wait (runner_thread_state.hpp says 50 ms).
constexpr int64_t k_settle_ns = 50'000'000;

void wait_until_off_cpu(pid_t pid) {
  const int64_t until = monotonic_ns() + k_settle_ns;
  for (int polls = 0; main_thread_on_cpu(pid); ++polls) {
    if (monotonic_ns() > until) return;
    if (polls < 8) {
      ::sched_yield();
    } else {
      timespec pause{0, 20'000};
      ::nanosleep(&pause, nullptr);
    }
  }
}

}  // namespace kwb::eval::detail
