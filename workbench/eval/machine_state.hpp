#pragma once
// What else the machine was doing while a verdict's timings ran (docs/evaluation.md "Machine
// state"): sampled around the timing stages, the runnable threads of processes that are not the
// workbench's own (this process and its descendants: the daemon's workers, the reference process,
// the runners, the sandboxed compiles) and not kernel threads; "busy" when such threads are seen
// again and again, not once. The 1-minute load average and the system's runnable threads
// (/proc/stat procs_running) are reported beside it: both count the workbench's own work too.
#include <sys/types.h>

#include <vector>

#include "core/verdict.hpp"

namespace kwb::eval {

class MachineWatch {
 public:
  // Samples now; call sample() again at points of interest (between workloads, blocks). `root`:
  // the process whose tree is the workbench (this process).
  explicit MachineWatch(pid_t root = 0);
  void sample();
  core::MachineState state() const;

 private:
  pid_t m_root;
  double m_load_max = 0;
  int m_running_max = 0;  // procs_running, less the sampling thread
  int m_others_max = 0;   // runnable threads outside the tree, in one sample
  int m_others_seen = 0;  // samples that saw any
  int m_samples = 0;
};

// One thread of the machine as /proc/<pid>/task/<tid>/stat tells it.
struct ThreadState {
  pid_t tid = 0, tgid = 0, ppid = 0;  // ppid: of the thread's process
  char state = '?';                   // 'R': running or runnable
  bool kernel = false;                // a kernel thread (PF_KTHREAD)
};

// Every thread of the machine (every process's /proc/<pid>/task); a process that exits meanwhile
// is left out.
std::vector<ThreadState> machine_threads();

// The runnable threads (their tids) of processes outside `root`'s tree (root and every
// descendant by ppid) that are not kernel threads.
std::vector<pid_t> runnable_outside(const std::vector<ThreadState>& threads, pid_t root);

// Busy: other runnable threads seen in at least two samples and in at least a third of them (a
// process that merely passed by is seen once; a build or a spinning process again and again).
bool busy_by_samples(int others_seen, int samples);

// The usable cores (CPU affinity).
int usable_cores();

// One state for two timings of the same verdict (the benchmark stage's and the comparison's):
// the highest load and counts, the samples added up, busy when either was.
core::MachineState combined(const core::MachineState& a, const core::MachineState& b);

}  // namespace kwb::eval
