// Keyed checksums that stand in for a private copy of every input (docs/evaluation.md "Anti-cheat
// rules", rule 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/checksum.hpp"

namespace {

using kwb::util::k_parallel_bytes;
using kwb::util::keyed_checksum;

std::vector<unsigned char> pattern(size_t n) {
  std::vector<unsigned char> v(n);
  uint64_t x = 0x1234567;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    v[i] = static_cast<unsigned char>(x >> 56);
  }
  return v;
}

TEST(Checksum, SameBytesAndKeyGiveTheSameSumAndAnyFlippedByteChangesIt) {
  // Sizes around the 32-byte blocks and the parallel chunks (3 chunks and a tail).
  for (size_t n : {size_t(0), size_t(1), size_t(31), size_t(33), size_t(4096), 3 * k_parallel_bytes + 77}) {
    auto v = pattern(n);
    const uint64_t sum = keyed_checksum(v.data(), n, 42);
    EXPECT_EQ(sum, keyed_checksum(v.data(), n, 42)) << n;
    for (size_t at : {size_t(0), n / 2, n - 1}) {
      if (n == 0) continue;
      v[at] ^= 0x01;
      EXPECT_NE(sum, keyed_checksum(v.data(), n, 42)) << "size " << n << ", byte " << at;
      v[at] ^= 0x01;
    }
  }
}

TEST(Checksum, DependsOnTheKeyTheLengthAndWhereBytesAre) {
  auto v = pattern(2 * k_parallel_bytes);
  EXPECT_NE(keyed_checksum(v.data(), v.size(), 1), keyed_checksum(v.data(), v.size(), 2));
  EXPECT_NE(keyed_checksum(v.data(), v.size(), 1), keyed_checksum(v.data(), v.size() - 1, 1));
  std::vector<unsigned char> zeros(64, 0), longer(65, 0);
  EXPECT_NE(keyed_checksum(zeros.data(), 64, 7), keyed_checksum(longer.data(), 65, 7));
  // Two chunks swapped: same bytes, other order.
  ASSERT_FALSE(std::equal(v.begin(), v.begin() + long(k_parallel_bytes), v.begin() + long(k_parallel_bytes)));
  auto swapped = v;
  std::copy(v.begin(), v.begin() + long(k_parallel_bytes), swapped.begin() + long(k_parallel_bytes));
  std::copy(v.begin() + long(k_parallel_bytes), v.end(), swapped.begin());
  EXPECT_NE(keyed_checksum(v.data(), v.size(), 9), keyed_checksum(swapped.data(), swapped.size(), 9));
}

}  // namespace
