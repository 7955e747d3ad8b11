// Scratch vectors of the trusted side are recycled across workloads and evaluations.
#include <gtest/gtest.h>

#include "eval/vector_pool.hpp"

namespace {

using kwb::eval::k_pool_min_bytes;
using kwb::eval::VectorPool;

TEST(VectorPool, AGivenVectorIsTakenAgainForAnyCountItHolds) {
  const size_t count = 2 * k_pool_min_bytes;  // large enough to keep
  std::vector<char> v(count);
  const char* storage = v.data();
  VectorPool<char>::give(std::move(v));
  auto again = VectorPool<char>::take(count / 2);
  EXPECT_EQ(again.data(), storage) << "the same storage comes back";
  EXPECT_EQ(again.size(), count / 2);
  auto fresh = VectorPool<char>::take(count / 2);
  EXPECT_NE(fresh.data(), storage) << "a vector is handed out once";
  VectorPool<char>::give(std::move(again));
  VectorPool<char>::give(std::move(fresh));
}

TEST(VectorPool, SmallVectorsAreNotKept) {
  std::vector<double> small(16);
  const double* storage = small.data();
  VectorPool<double>::give(std::move(small));
  auto v = VectorPool<double>::take(16);
  EXPECT_NE(v.data(), storage);
}

TEST(VectorPool, FitGrowsFromThePoolAndKeepsWhatIsLargeEnough) {
  std::vector<char> v(2 * k_pool_min_bytes);
  const char* storage = v.data();
  VectorPool<char>::fit(v, k_pool_min_bytes);
  EXPECT_EQ(v.data(), storage) << "shrinking keeps the storage";
  EXPECT_EQ(v.size(), k_pool_min_bytes);
  VectorPool<char>::fit(v, 4 * k_pool_min_bytes);
  EXPECT_EQ(v.size(), 4 * k_pool_min_bytes);
  auto back = VectorPool<char>::take(2 * k_pool_min_bytes);
  EXPECT_EQ(back.data(), storage) << "the outgrown vector went to the pool";
}

}  // namespace
