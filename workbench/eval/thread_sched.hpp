#pragma once
// What /proc says of one thread of another process (the runner's main thread, or the trusted
// timing thread itself), for the trusted timing of CPU calls (runner_client_timing.cpp): its
// involuntary context switches, its time on a CPU and waiting for one, whether it is runnable.
#include <sys/types.h>

#include <cstdint>

namespace kwb::eval::detail {

// Involuntary context switches of thread `pid` (/proc/<pid>/task/<pid>/status), -1 when
// unreadable: a sample during which the runner's main thread was preempted measures the machine.
long involuntary_switches(pid_t pid);

// Thread `pid`'s time on a CPU and its time runnable but waiting for one, in nanoseconds
// (/proc/<pid>/task/<pid>/schedstat, the scheduler's own account); -1 each when unreadable. The
// time on a CPU of a thread that is running now lags until its next tick or switch: read it with
// the thread off its CPU.
struct SchedTimes {
  int64_t on_cpu_ns = -1, wait_ns = -1;
};
SchedTimes sched_times(pid_t pid);

// Nanoseconds thread `pid` has spent runnable but waiting for a CPU, -1 when unreadable. The
// scheduler adds a wait when the thread gets the CPU again, so a call's waits are all counted by
// the time the thread answers "done" (and the timing thread's by the time it has read the answer).
int64_t runqueue_wait_ns(pid_t pid);

// True while thread `pid` is running or runnable ('R' in /proc/<pid>/task/<pid>/stat).
bool main_thread_on_cpu(pid_t pid);

}  // namespace kwb::eval::detail
