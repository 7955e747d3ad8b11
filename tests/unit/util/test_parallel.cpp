#include <gtest/gtest.h>

#include <atomic>
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
