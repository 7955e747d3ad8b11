#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "core/parallel_ranges.hpp"

namespace kwb::core {
namespace {

TEST(ParallelRanges, EveryItemOnceOnAnyNumberOfThreads) {
  for (int64_t n : {0, 1, 7, 1000, 100003}) {
    for (int64_t threads : {1, 2, 3, 16, 200}) {
      std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
      parallel_ranges_on(threads, n, [&](int64_t begin, int64_t end) {
        ASSERT_LE(0, begin);
        ASSERT_LE(begin, end);
        ASSERT_LE(end, n);
        for (int64_t i = begin; i < end; ++i) seen[size_t(i)]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[size_t(i)].load(), 1) << "n=" << n << " threads=" << threads << " i=" << i;
    }
  }
}

TEST(ParallelRanges, AThrowInAnyRangeReachesTheCaller) {
  const int64_t n = 1 << 20;
  for (int64_t threads : {1, 4})
    EXPECT_THROW(parallel_ranges_on(threads, n,
                                    [&](int64_t begin, int64_t end) {
                                      if (begin <= n - 1 && n - 1 < end) throw std::runtime_error("last range");
                                    }),
                 std::runtime_error);
}

TEST(ParallelRanges, SmallWorkRunsOnTheCaller) {
  int calls = 0;
  parallel_ranges(1000, 1000, [&](int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 1000);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_GE(usable_cores(), 1);
}

}  // namespace
}  // namespace kwb::core
