#pragma once
// Where a CPU runner sits while it is timed (docs/library.md "Decide", docs/evaluation.md
// "Timing"). Two things of a kwb-runner process change how fast the same code runs in it, and
// neither is the code's: the linear address its buffers are mapped at, and the core it runs on.
// - The address: every timed CPU runner maps the arena at k_timed_arena_address (the `at` of the
//   map command, sandbox/protocol/protocol.hpp). Where each process's kernel put it (a random
//   address per process) one vector_add read 0.70-1.57x against itself in another runner process,
//   with tight intervals, on the 2-core AMD EPYC VM (docs/benchmarks/decide.md "Two processes, one
//   kernel").
// - The core: with one thread, a runner is pinned to one CPU per timing batch, the CPUs of the
//   trusted process's affinity mask in turn (cpu_of_turn); the decide stage gives both sides'
//   k-th blocks turn k, so each block pair runs on one core (the two sides on two cores read up to
//   8 % apart under load).
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

// The CPU of turn `turn`: the CPUs taken in turn; -1 when there are none.
int cpu_of_turn(const std::vector<int>& cpus, uint64_t turn);

// Pins every thread of process `pid` to `cpu` (threads it starts later inherit that).
util::Result<void> pin_process(pid_t pid, int cpu);

// The CPU `pid`'s main thread last ran on (/proc/<pid>/stat), -1 when unreadable.
int last_cpu_of(pid_t pid);

}  // namespace kwb::eval
