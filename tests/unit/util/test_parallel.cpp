#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "util/parallel.hpp"

namespace kwb::util {
namespace {

TEST(Parallel, EveryChunkRunsExactlyOnce) {
  std::vector<std::atomic<int>> hits(1000);
  parallel_chunks(hits.size(), [&](size_t k) { ++hits[k]; });
  for (size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k].load(), 1) << k;
  parallel_chunks(0, [&](size_t) { FAIL() << "no chunk to run"; });
}

// The workers are shared: calls from many threads at once, and calls made from inside a chunk,
// each run every one of their own chunks exactly once and return only when all are done.
TEST(Parallel, ConcurrentAndNestedCallsEachRunAllTheirChunks) {
  constexpr int k_callers = 8, k_rounds = 50;
  std::vector<std::thread> callers;
  std::atomic<int> bad{0};
  for (int t = 0; t < k_callers; ++t)
    callers.emplace_back([&, t] {
      for (int r = 0; r < k_rounds; ++r) {
        const size_t n = size_t(1 + (t * 37 + r * 11) % 97);
        std::vector<std::atomic<int>> hits(n * 4);
        parallel_chunks(n, [&](size_t k) {
          parallel_chunks(4, [&](size_t j) { ++hits[k * 4 + j]; });  // nested: a chunk's own call
        });
        for (auto& h : hits) bad += h.load() != 1;  // read after return: all chunks finished
      }
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(Parallel, CopyAndEqualCoverTheWholeBufferIncludingAnUnevenTail) {
  const size_t n = 3 * k_parallel_bytes + 12345;
  std::vector<unsigned char> a(n), b(n, 0);
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<unsigned char>(i * 131 + 7);
  parallel_copy(b.data(), a.data(), n);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(parallel_equal(a.data(), b.data(), n));
  b[n - 1] ^= 1;  // the last byte of the short last chunk
  EXPECT_FALSE(parallel_equal(a.data(), b.data(), n));
  b[n - 1] ^= 1;
  b[k_parallel_bytes] ^= 0x80;  // the first byte of the second chunk
  EXPECT_FALSE(parallel_equal(a.data(), b.data(), n));
}

}  // namespace
}  // namespace kwb::util
