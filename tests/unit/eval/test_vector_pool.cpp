// Scratch vectors of the trusted side are recycled across workloads and evaluations. Each test
// uses a pool of its own, so none depends on what an earlier test left in the shared one (the
// whole binary passes in any order, not just one test per process as ctest runs it).
#include <gtest/gtest.h>

#include "eval/vector_pool.hpp"

namespace {

using kwb::eval::BasicVectorPool;
using kwb::eval::k_pool_min_bytes;
using kwb::eval::VectorPool;

TEST(VectorPool, AGivenVectorIsTakenAgainForAnyCountItHolds) {
  BasicVectorPool<char> pool;
  const size_t count = 2 * k_pool_min_bytes;  // large enough to keep
  std::vector<char> v(count);
  const char* storage = v.data();
  pool.give(std::move(v));
  auto again = pool.take(count / 2);
  EXPECT_EQ(again.data(), storage) << "the same storage comes back";
  EXPECT_EQ(again.size(), count / 2);
  auto fresh = pool.take(count / 2);
  EXPECT_NE(fresh.data(), storage) << "a vector is handed out once";
}

TEST(VectorPool, SmallVectorsAreNotKept) {
  BasicVectorPool<double> pool;
  std::vector<double> small(16);
  pool.give(std::move(small));
  EXPECT_EQ(pool.bytes(), 0u);
}

TEST(VectorPool, FitGrowsFromThePoolAndKeepsWhatIsLargeEnough) {
  BasicVectorPool<char> pool;
  std::vector<char> v(2 * k_pool_min_bytes);
  const char* storage = v.data();
  pool.fit(v, k_pool_min_bytes);
  EXPECT_EQ(v.data(), storage) << "shrinking keeps the storage";
  EXPECT_EQ(v.size(), k_pool_min_bytes);
  pool.fit(v, 4 * k_pool_min_bytes);
  EXPECT_EQ(v.size(), 4 * k_pool_min_bytes);
  auto back = pool.take(2 * k_pool_min_bytes);
  EXPECT_EQ(back.data(), storage) << "the outgrown vector went to the pool";
}

TEST(VectorPool, KeepsAtMostItsLimitDroppingTheOldest) {
  BasicVectorPool<char> pool(3 * k_pool_min_bytes);
  std::vector<char> first(2 * k_pool_min_bytes), second(2 * k_pool_min_bytes);
  const char* newer = second.data();
  pool.give(std::move(first));
  pool.give(std::move(second));
  EXPECT_EQ(pool.bytes(), 2 * k_pool_min_bytes);
  EXPECT_EQ(pool.take(k_pool_min_bytes).data(), newer);
}

TEST(VectorPool, TheSharedPoolHandsOutWhatItWasGiven) {
  // Whatever earlier tests left in the process-wide pool: a vector larger than all of it is
  // found again by its exact size.
  const size_t count = 8 * k_pool_min_bytes + 4096;
  std::vector<char> v(count);
  const char* storage = v.data();
  VectorPool<char>::give(std::move(v));
  auto back = VectorPool<char>::take(count);
  EXPECT_EQ(back.data(), storage);
}

}  // namespace
