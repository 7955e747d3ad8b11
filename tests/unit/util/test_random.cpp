#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "util/random.hpp"

namespace kwb::util {
namespace {

TEST(Rng, DeterministicPerSeed) {
  Rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next(), b.next()) << "draw " << i;
  Rng c(42), d(42);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(c.uniform01(), d.uniform01());
    ASSERT_EQ(c.normal(), d.normal());
  }
}

TEST(Rng, DifferentSeedsDiffer) {
  Rng a(1), b(2);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += a.next() == b.next();
  EXPECT_EQ(same, 0);
}

TEST(Rng, SeedZeroProducesVaryingOutput) {
  Rng r(0);
  std::set<uint64_t> values;
  for (int i = 0; i < 100; ++i) values.insert(r.next());
  EXPECT_EQ(values.size(), 100u);
}

TEST(Rng, Uniform01InHalfOpenUnitInterval) {
  Rng r(7);
  double lo = 1, hi = 0, sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    double u = r.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
  }
  EXPECT_LT(lo, 0.001);
  EXPECT_GT(hi, 0.999);
  EXPECT_NEAR(sum / n, 0.5, 0.01);
}

TEST(Rng, NormalHasMeanZeroAndStddevOne) {
  Rng r(12345);
  const int n = 100000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    double x = r.normal();
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n;
  const double stddev = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.02);  // standard error ~0.003
  EXPECT_NEAR(stddev, 1.0, 0.02);
}

TEST(SecretSeed, DiffersBetweenCalls) {
  std::set<uint64_t> seeds;
  for (int i = 0; i < 8; ++i) seeds.insert(secret_seed());
  EXPECT_EQ(seeds.size(), 8u);
}

TEST(RandomHex, LengthAndAlphabet) {
  const std::string h = random_hex(8);
  EXPECT_EQ(h.size(), 16u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
  EXPECT_NE(random_hex(8), random_hex(8));
  EXPECT_EQ(random_hex(0), "");
}

}  // namespace
}  // namespace kwb::util
