#pragma once
// Where a CPU runner sits while it is timed (docs/library.md "Decide", docs/evaluation.md
// "Timing"). Two things of a kwb-runner process change how fast the same code runs in it, and
// neither is the code's: the linear address its buffers are mapped at, and the core it runs on.
// - The address: every timed CPU runner maps the arena at k_timed_arena_address (the `at` of the
//   map command, sandbox/protocol/protocol.hpp). Where each process's kernel put it (a random
//   address per process) one vector_add read 0.74-1.25x against itself in another runner process,
//   with tight intervals, on the 2-core AMD EPYC VM (docs/benchmarks/decide.md "Two processes, one
//   kernel").
// - The core: with one thread, each timing batch runs with the runner and the trusted thread that
//   times it pinned to one CPU, the one that thread is on when the batch starts (the scheduler's
//   choice), and a decide block pair's second block on its first block's CPU (same placement key).
//   The two sides on two cores read up to 8 % apart under load. The trusted thread goes with the
//   runner because the two take turns (it flushes and waits while the runner calls) and a sample
//   ends when it wakes: on another core, shared with a busy process, its wake-up delay was read
//   as the kernel's time.
#include <sched.h>
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "util/error.hpp"

namespace kwb::eval {

// The arena's linear address in every timed kwb-runner: 1 GiB aligned, far below where the
// kernel places mappings (the top 1 TiB or so below the stack) and far above the program.
constexpr uintptr_t k_timed_arena_address = 0x7e0000000000;

// The CPUs this process may run on (its affinity mask, which cgroup cpusets narrow too), in order.
std::vector<int> allowed_cpus();

// The CPU for a timing batch of placement key `key` (docs/evaluation.md "Timing"): the CPU the
// calling thread is on now, unless the previous batch this thread placed had the same non-zero
// key (then that batch's CPU). 0: always the calling thread's CPU.
int cpu_for_batch(uint64_t key);

// Pins every thread of process `pid` to `cpu` (threads it starts later inherit that).
util::Result<void> pin_process(pid_t pid, int cpu);

// The CPU `pid`'s main thread last ran on (/proc/<pid>/stat), -1 when unreadable.
int last_cpu_of(pid_t pid);

// Pins the calling thread to `cpu` while it lives, then gives it back the CPUs it had.
class CallingThreadPin {
 public:
  explicit CallingThreadPin(int cpu);
  ~CallingThreadPin();
  CallingThreadPin(const CallingThreadPin&) = delete;
  CallingThreadPin& operator=(const CallingThreadPin&) = delete;
  bool pinned() const { return m_pinned; }

 private:
  cpu_set_t m_before{};
  bool m_pinned = false;
};

}  // namespace kwb::eval
