#pragma once
// For trusted references (specs/<op>/reference.cpp): [0, n) cut into contiguous ranges, each
// handed to fn(begin, end) on its own thread, when the work is large enough to pay for the
// threads. Every item is computed by one thread exactly as a serial loop would, so the result
// does not depend on the thread count. What fn throws is rethrown on the caller (the first).
#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kwb::core {

// The cores this process may run on (its affinity mask, which cgroup cpusets narrow too).
inline int64_t usable_cores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
#endif
  return std::max<int64_t>(std::thread::hardware_concurrency(), 1);
}

// [0, n) on exactly `threads` contiguous ranges (at most n; the caller's thread takes the first).
template <class F>
void parallel_ranges_on(int64_t threads, int64_t n, F&& fn) {
  threads = std::clamp<int64_t>(threads, 1, std::max<int64_t>(n, 1));
  if (threads <= 1) return fn(int64_t(0), n);
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](int64_t t) {
    try {
      fn(n * t / threads, n * (t + 1) / threads);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  try {
    for (int64_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  } catch (...) {  // no thread to be had: the rest on the caller
    for (int64_t t = int64_t(pool.size()) + 1; t < threads; ++t) run(t);
  }
  run(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// `work`: roughly the operations of the whole loop: one thread per 256 K of it (the loop runs on
// the caller below that), at most one per usable core but one. That core is left alone: on a
// GPU evaluation the reference runs while the runner waits for the device, and a runner thread
// that wakes late reads as work left running elsewhere (docs/cuda.md).
template <class F>
void parallel_ranges(int64_t n, int64_t work, F&& fn) {
  parallel_ranges_on(std::min(work >> 18, usable_cores() - 1), n, fn);
}

}  // namespace kwb::core
