#pragma once
// For trusted references (specs/<op>/reference.cpp): [0, n) cut into one contiguous range per
// core, each handed to fn(begin, end) on its own thread, when the work is large enough to pay
// for the threads. Every item is computed by one thread exactly as a serial loop would, so the
// result does not depend on the thread count.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace kwb::core {

// `work`: roughly the operations of the whole loop; below ~1 M the loop runs on the caller.
template <class F>
void parallel_ranges(int64_t n, int64_t work, F&& fn) {
  constexpr int64_t k_min_work = int64_t(1) << 20;
  const int64_t threads =
      work < k_min_work ? 1 : std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, std::max<int64_t>(n, 1));
  if (threads <= 1) return fn(int64_t(0), n);
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back([&fn, n, t, threads] { fn(n * t / threads, n * (t + 1) / threads); });
  fn(int64_t(0), n / threads);
  for (auto& t : pool) t.join();
}

}  // namespace kwb::core
