#include "eval/machine_state.hpp"

#include <sched.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace kwb::eval {

namespace {

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

}  // namespace

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

MachineWatch::MachineWatch() { sample(); }

void MachineWatch::sample() {
  double load[1] = {0};
  if (getloadavg(load, 1) == 1) m_load_max = std::max(m_load_max, load[0]);
  // The sampling thread itself is running: it is not load.
  m_running_max = std::max(m_running_max, procs_running() - 1);
  ++m_samples;
}

core::MachineState MachineWatch::state(int own_threads) const {
  core::MachineState s;
  s.load_avg_1m = m_load_max;
  s.running_max = m_running_max;
  s.cores = usable_cores();
  // Busy: other runnable threads beyond ours, or a load average above what the timing makes on
  // its own (one runner thread, plus half a core of the trusted side's work).
  const int others = std::max(0, m_running_max - own_threads);
  s.busy = others > 0 || m_load_max > double(own_threads) + 0.5;
  s.detail = fmt::format("load average {:.2f} on {} core{}, up to {} other runnable thread{} seen in {} samples",
                         m_load_max, s.cores, s.cores == 1 ? "" : "s", others, others == 1 ? "" : "s", m_samples);
  return s;
}

}  // namespace kwb::eval
