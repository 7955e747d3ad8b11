#include "eval/cpu_placement.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kwb::eval {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

int cpu_for_batch(uint64_t key) {
  thread_local uint64_t last_key = 0;
  thread_local int last_cpu = -1;
  if (key == 0 || key != last_key || last_cpu < 0) {
    last_key = key;
    last_cpu = ::sched_getcpu();
  }
  return last_cpu;
}

util::Result<void> pin_process(pid_t pid, int cpu) {
  if (pid <= 0 || cpu < 0 || cpu >= CPU_SETSIZE)
    return util::fail("cpu placement", "no process or CPU to pin (pid " + std::to_string(pid) + ", cpu " +
                                           std::to_string(cpu) + ")");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (!dir) {  // no /proc: the main thread at least
    if (::sched_setaffinity(pid, sizeof set, &set) == 0) return {};
    return util::fail("cpu placement", "cannot pin process " + std::to_string(pid) + " to CPU " + std::to_string(cpu) +
                                           ": " + std::strerror(errno));
  }
  int pinned = 0, first_errno = 0;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (::sched_setaffinity(pid_t(std::atoi(e->d_name)), sizeof set, &set) == 0) ++pinned;
    else if (errno != ESRCH && first_errno == 0) first_errno = errno;  // ESRCH: the thread has just exited
  }
  ::closedir(dir);
  if (first_errno != 0 || pinned == 0)
    return util::fail("cpu placement", "cannot pin the threads of process " + std::to_string(pid) + " to CPU " +
                                           std::to_string(cpu) + ": " +
                                           std::strerror(first_errno ? first_errno : ESRCH));
  return {};
}

int last_cpu_of(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
  if (!p) return -1;
  // Fields after the name start with the 3rd (state); the CPU is the 39th.
  for (int field = 2; field < 39 && p; ++field) p = std::strchr(p + 1, ' ');
  return p ? std::atoi(p + 1) : -1;
}

CallingThreadPin::CallingThreadPin(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE || ::sched_getaffinity(0, sizeof m_before, &m_before) != 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  m_pinned = ::sched_setaffinity(0, sizeof one, &one) == 0;
}

CallingThreadPin::~CallingThreadPin() {
  if (m_pinned) ::sched_setaffinity(0, sizeof m_before, &m_before);
}

}  // namespace kwb::eval
