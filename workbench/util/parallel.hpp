#pragma once
// Chunked work on every core, for the trusted side's large-buffer passes (input generation,
// output comparison, copies and input checks of bench workloads with hundreds of MB).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

namespace kwb::util {

// Runs call(ctx, k) for every k in [0, chunks) on the process's chunk workers and the caller;
// returns when all are done. The workers (hardware_concurrency - 1, started on first use) live
// as long as the process: a thread per call cost a stack's mmap, mprotect and madvise each time,
// and with several evaluations at once the daemon's threads spent more time in those (holding
// the address space's lock against every page fault) than running (docs/benchmarks/h200.md
// "Candidates per minute"). Calls from several threads share the workers; a call made from a
// chunk runs its own chunks too, so nesting cannot deadlock.
void run_chunks(size_t chunks, void* ctx, void (*call)(void*, size_t));

// Calls fn(k) for every k in [0, chunks), on up to hardware_concurrency threads (the caller's
// among them); returns when all are done.
template <class F>
void parallel_chunks(size_t chunks, F&& fn) {
  if (chunks <= 1 || std::thread::hardware_concurrency() <= 1) {
    for (size_t k = 0; k < chunks; ++k) fn(k);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  run_chunks(chunks, const_cast<void*>(static_cast<const void*>(&fn)),
             [](void* ctx, size_t k) { (*static_cast<Fn*>(ctx))(k); });
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
