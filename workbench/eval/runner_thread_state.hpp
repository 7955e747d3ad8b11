#pragma once
// What the kernel says of one thread of a runner (or of the timing thread itself), read from
// /proc/<pid>/task/<pid>/: its involuntary context switches, its time on a CPU and waiting for
// one, and whether it is running. The trusted timing of CPU calls (runner_client_timing.cpp)
// takes a sample's waits out and judges the work around a call with these.
#include <sys/types.h>

#include <cstdint>

namespace kwb::eval::detail {

// Involuntary context switches of thread `pid` (the runner's main thread: the one that calls the
// kernel), -1 when unreadable: a sample during which the thread was preempted measures the machine.
long involuntary_switches(pid_t pid);

// Thread `pid`'s time on a CPU and its time runnable but waiting for one, in nanoseconds
// (/proc/<pid>/task/<pid>/schedstat, the scheduler's own account); -1 each when unreadable.
struct SchedTimes {
  int64_t on_cpu_ns = -1, wait_ns = -1;
};
SchedTimes sched_times(pid_t pid);

// Nanoseconds thread `pid` (the runner's main thread, or this timing thread) has spent runnable
// but waiting for a CPU (the second field of /proc/<pid>/task/<pid>/schedstat, the scheduler's
// own account), -1 when unreadable. The scheduler adds a wait when the thread gets the CPU again,
// so a call's waits are all counted by the time the thread answers "done" (and this thread's by
// the time it has read the answer).
int64_t runqueue_wait_ns(pid_t pid);

// True while the runner's main thread (the one that takes commands and calls the kernel) is
// running or runnable ('R' in /proc/<pid>/task/<pid>/stat).
bool main_thread_on_cpu(pid_t pid);

// Waits, at most 50 ms, until the runner's main thread has left its CPU (asleep, waiting for the
// next command or release): its CPU time is then exact. Only the main thread: a thread the
// candidate left working must not be waited for, its CPU time is charged where it shows. Past
// the bound the clock is read anyway.
void wait_until_off_cpu(pid_t pid);

}  // namespace kwb::eval::detail
