#pragma once
// Chunked work on every core, for the trusted side's large-buffer passes (input generation,
// output comparison, copies and input checks of bench workloads with hundreds of MB).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace kwb::util {

// Calls fn(k) for every k in [0, chunks), on up to hardware_concurrency threads (the caller's
// among them); returns when all are done.
template <class F>
void parallel_chunks(size_t chunks, F&& fn) {
  const size_t threads = std::min<size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (size_t k = 0; k < chunks; ++k) fn(k);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < chunks;) fn(k);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

inline constexpr size_t k_parallel_bytes = size_t(8) << 20;  // chunk of the byte-wise helpers

inline void parallel_copy(void* dst, const void* src, size_t bytes) {
  const size_t chunks = (bytes + k_parallel_bytes - 1) / k_parallel_bytes;
  parallel_chunks(chunks, [&](size_t k) {
    size_t at = k * k_parallel_bytes;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(k_parallel_bytes, bytes - at));
  });
}

inline void parallel_fill(void* dst, unsigned char byte, size_t bytes) {
  const size_t chunks = (bytes + k_parallel_bytes - 1) / k_parallel_bytes;
  parallel_chunks(chunks, [&](size_t k) {
    size_t at = k * k_parallel_bytes;
    std::memset(static_cast<char*>(dst) + at, byte, std::min(k_parallel_bytes, bytes - at));
  });
}

inline bool parallel_equal(const void* a, const void* b, size_t bytes) {
  const size_t chunks = (bytes + k_parallel_bytes - 1) / k_parallel_bytes;
  std::atomic<bool> same{true};
  parallel_chunks(chunks, [&](size_t k) {
    size_t at = k * k_parallel_bytes;
    if (same.load(std::memory_order_relaxed) &&
        std::memcmp(static_cast<const char*>(a) + at, static_cast<const char*>(b) + at,
                    std::min(k_parallel_bytes, bytes - at)) != 0)
      same = false;
  });
  return same;
}

}  // namespace kwb::util
