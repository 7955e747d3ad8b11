#include "eval/machine_state.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

namespace kwb::eval {

namespace {

constexpr unsigned long k_pf_kthread = 0x00200000;  // include/linux/sched.h

int procs_running() {
  std::ifstream in("/proc/stat");
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "procs_running" && in >> value) return int(value);
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

// The fields of a /proc/.../stat line after the command name: [0] is field 3 (state).
struct StatFields {
  char state = '?';
  pid_t ppid = 0;
  unsigned long flags = 0;
  long threads = 1;
};

bool read_stat(const std::string& path, StatFields& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
  if (!p || p[1] != ' ') return false;
  p += 2;
  out.state = *p;
  // Fields 3.. separated by single spaces: ppid is field 4, flags 9, num_threads 20.
  for (int field = 3; field <= 20 && p; ++field) {
    if (field == 4) out.ppid = pid_t(std::strtol(p, nullptr, 10));
    if (field == 9) out.flags = std::strtoul(p, nullptr, 10);
    if (field == 20) out.threads = std::strtol(p, nullptr, 10);
    p = std::strchr(p, ' ');
    if (p) ++p;
  }
  return true;
}

// The numeric entries of a /proc folder.
std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> ids;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') ids.push_back(pid_t(std::atoi(e->d_name)));
    ::closedir(d);
  }
  return ids;
}

}  // namespace

std::vector<ThreadState> machine_threads() {
  std::vector<ThreadState> out;
  for (pid_t pid : numeric_entries("/proc")) {
    const std::string base = "/proc/" + std::to_string(pid);
    StatFields proc;
    if (!read_stat(base + "/stat", proc)) continue;
    const bool kernel = proc.flags & k_pf_kthread;
    if (proc.threads <= 1 || kernel) {
      out.push_back({pid, pid, proc.ppid, proc.state, kernel});
      continue;
    }
    for (pid_t tid : numeric_entries(base + "/task")) {
      StatFields task;
      if (read_stat(base + "/task/" + std::to_string(tid) + "/stat", task))
        out.push_back({tid, pid, proc.ppid, task.state, kernel});
    }
  }
  return out;
}

std::vector<pid_t> runnable_outside(const std::vector<ThreadState>& threads, pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;  // process -> its child processes
  for (const auto& t : threads)
    if (t.tid == t.tgid) children[t.ppid].push_back(t.tgid);
  std::set<pid_t> tree = {root};
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p])
      if (tree.insert(c).second) todo.push_back(c);
  }
  std::vector<pid_t> out;
  for (const auto& t : threads)
    if (t.state == 'R' && !t.kernel && !tree.contains(t.tgid)) out.push_back(t.tid);
  return out;
}

bool busy_by_samples(int others_seen, int samples) { return others_seen >= 2 && 3 * others_seen >= samples; }

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

MachineWatch::MachineWatch(pid_t root) : m_root(root > 0 ? root : ::getpid()) { sample(); }

void MachineWatch::sample() {
  double load[1] = {0};
  if (getloadavg(load, 1) == 1) m_load_max = std::max(m_load_max, load[0]);
  // The sampling thread itself is running: it is not load.
  m_running_max = std::max(m_running_max, procs_running() - 1);
  const int others = int(runnable_outside(machine_threads(), m_root).size());
  m_others_max = std::max(m_others_max, others);
  if (others > 0) ++m_others_seen;
  ++m_samples;
}

namespace {

std::string detail_of(const core::MachineState& s) {
  return fmt::format("load average {:.2f} on {} core{}, other processes' runnable threads seen in {} of {} samples "
                     "(up to {} at once; the workbench's own not counted)",
                     s.load_avg_1m, s.cores, s.cores == 1 ? "" : "s", s.others_seen, s.samples, s.others_max);
}

}  // namespace

core::MachineState MachineWatch::state() const {
  core::MachineState s;
  s.load_avg_1m = m_load_max;
  s.running_max = m_running_max;
  s.cores = usable_cores();
  s.others_max = m_others_max;
  s.others_seen = m_others_seen;
  s.samples = m_samples;
  // Busy: other processes' threads runnable again and again while the timings ran. Not the load
  // average alone: it counts the workbench's own compiles and runners of the last minute.
  s.busy = busy_by_samples(s.others_seen, s.samples);
  s.detail = detail_of(s);
  return s;
}

core::MachineState combined(const core::MachineState& a, const core::MachineState& b) {
  core::MachineState s;
  s.load_avg_1m = std::max(a.load_avg_1m, b.load_avg_1m);
  s.running_max = std::max(a.running_max, b.running_max);
  s.cores = std::max(a.cores, b.cores);
  s.others_max = std::max(a.others_max, b.others_max);
  s.others_seen = a.others_seen + b.others_seen;
  s.samples = a.samples + b.samples;
  s.busy = a.busy || b.busy || busy_by_samples(s.others_seen, s.samples);
  s.detail = detail_of(s);
  return s;
}

}  // namespace kwb::eval
