#pragma once
// What else the machine was doing while a verdict's timings ran (docs/evaluation.md "Machine
// state"): the 1-minute load average and the runnable threads (/proc/stat procs_running), sampled
// around the timing stages; a machine busier than the timing itself makes adds a warning.
#include "core/verdict.hpp"

namespace kwb::eval {

class MachineWatch {
 public:
  // Samples now; call sample() again at points of interest (between workloads, blocks).
  MachineWatch();
  void sample();
  // `own_threads`: runnable threads the evaluation itself accounts for (the timed runner: 1).
  core::MachineState state(int own_threads = 1) const;

 private:
  double m_load_max = 0;
  int m_running_max = 0;
  int m_samples = 0;
};

// The usable cores (CPU affinity).
int usable_cores();

}  // namespace kwb::eval
