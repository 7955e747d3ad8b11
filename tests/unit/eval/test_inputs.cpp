#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "eval/inputs.hpp"
#include "util/random.hpp"

namespace kwb::eval {
namespace {

using core::DType;
using core::Generator;

Generator uniform(double lo, double hi) {
  Generator g;
  g.kind = "uniform";
  g.lo = lo;
  g.hi = hi;
  return g;
}

Generator int_uniform(double lo, double hi) {
  Generator g;
  g.kind = "int_uniform";
  g.lo = lo;
  g.hi = hi;
  return g;
}

Generator with_specials(Generator g, std::vector<std::string> specials, double fraction) {
  g.specials = std::move(specials);
  g.specials_fraction = fraction;
  return g;
}

std::vector<double> fill(DType t, size_t n, const Generator& g, uint64_t seed) {
  std::vector<unsigned char> buf(n * core::dtype_size(t));
  util::Rng rng(seed);
  fill_tensor(buf.data(), t, n, g, rng);
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = core::load_as_double(buf.data(), t, i);
  return out;
}

TEST(FillTensor, UniformStaysWithinBounds) {
  for (DType t : {DType::f32, DType::f64}) {
    auto v = fill(t, 100000, uniform(-2, 3), 11);
    double lo = 1e9, hi = -1e9, sum = 0;
    for (double x : v) {
      ASSERT_GE(x, -2.0);
      ASSERT_LT(x, 3.0);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
    }
    EXPECT_LT(lo, -1.99) << core::dtype_name(t);
    EXPECT_GT(hi, 2.99) << core::dtype_name(t);
    EXPECT_NEAR(sum / double(v.size()), 0.5, 0.05) << core::dtype_name(t);
  }
}

TEST(FillTensor, IntUniformU8CoversBothInclusiveEnds) {
  auto v = fill(DType::u8, 100000, int_uniform(0, 255), 5);
  std::set<double> seen;
  for (double x : v) {
    ASSERT_GE(x, 0);
    ASSERT_LE(x, 255);
    ASSERT_EQ(x, std::floor(x));
    seen.insert(x);
  }
  EXPECT_TRUE(seen.contains(0));
  EXPECT_TRUE(seen.contains(255));
  EXPECT_EQ(seen.size(), 256u);  // ~390 draws per value expected
}

TEST(FillTensor, IntUniformSignedRange) {
  auto v = fill(DType::i32, 10000, int_uniform(-3, 3), 9);
  std::set<double> seen(v.begin(), v.end());
  EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3}));
}

TEST(FillTensor, Constant) {
  Generator g;
  g.kind = "constant";
  g.value = 2.5;
  for (double x : fill(DType::f32, 100, g, 1)) EXPECT_EQ(x, 2.5);
  for (double x : fill(DType::bf16, 100, g, 1)) EXPECT_EQ(x, 2.5);
}

TEST(FillTensor, NormalMeanAndStddev) {
  Generator g;
  g.kind = "normal";
  g.mean = 5;
  g.stddev = 2;
  auto v = fill(DType::f64, 100000, g, 21);
  double sum = 0, sum2 = 0;
  for (double x : v) {
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / double(v.size());
  EXPECT_NEAR(mean, 5.0, 0.05);
  EXPECT_NEAR(std::sqrt(sum2 / double(v.size()) - mean * mean), 2.0, 0.05);
}

TEST(FillTensor, SpecialsFractionIsRoughlyRespected) {
  const size_t n = 100000;
  auto v = fill(DType::f32, n, with_specials(uniform(-1, 1), {"inf"}, 0.25), 4);
  size_t infs = 0;
  for (double x : v) infs += std::isinf(x) ? 1 : 0;
  EXPECT_NEAR(double(infs) / double(n), 0.25, 0.02);
}

TEST(FillTensor, NoSpecialsWhenFractionIsZero) {
  auto v = fill(DType::f32, 10000, with_specials(uniform(-1, 1), {"nan"}, 0.0), 4);
  for (double x : v) ASSERT_FALSE(std::isnan(x));
}

TEST(FillTensor, NanEverywhereWithFractionOne) {
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    auto v = fill(t, 1000, with_specials(uniform(-1, 1), {"nan"}, 1.0), 8);
    for (double x : v) ASSERT_TRUE(std::isnan(x)) << core::dtype_name(t);
  }
}

TEST(FillTensor, SignedZeroAndInfinitySpecials) {
  for (double x : fill(DType::f32, 100, with_specials(uniform(1, 2), {"-0"}, 1.0), 2)) {
    EXPECT_EQ(x, 0.0);
    EXPECT_TRUE(std::signbit(x));
  }
  for (double x : fill(DType::bf16, 100, with_specials(uniform(1, 2), {"-inf"}, 1.0), 2))
    EXPECT_EQ(x, -std::numeric_limits<double>::infinity());
}

TEST(FillTensor, EverySpecialOfAListAppears) {
  auto v = fill(DType::f32, 10000, with_specials(uniform(1, 2), {"nan", "inf", "-inf", "-0"}, 1.0), 6);
  size_t nan = 0, pinf = 0, ninf = 0, nzero = 0;
  for (double x : v) {
    if (std::isnan(x)) ++nan;
    else if (x == INFINITY) ++pinf;
    else if (x == -INFINITY) ++ninf;
    else if (x == 0 && std::signbit(x)) ++nzero;
  }
  EXPECT_EQ(nan + pinf + ninf + nzero, v.size());
  for (size_t c : {nan, pinf, ninf, nzero}) EXPECT_GT(c, 2000u);
}

TEST(FillTensor, F32MaxAndLowestAndDenormal) {
  for (double x : fill(DType::f32, 10, with_specials(uniform(0, 1), {"max"}, 1.0), 1))
    EXPECT_EQ(x, double(std::numeric_limits<float>::max()));
  for (double x : fill(DType::f32, 10, with_specials(uniform(0, 1), {"lowest"}, 1.0), 1))
    EXPECT_EQ(x, double(std::numeric_limits<float>::lowest()));
  for (double x : fill(DType::f32, 10, with_specials(uniform(0, 1), {"denormal"}, 1.0), 1)) {
    EXPECT_GT(x, 0);
    EXPECT_LT(x, double(std::numeric_limits<float>::min()));
  }
  for (double x : fill(DType::bf16, 10, with_specials(uniform(0, 1), {"denormal"}, 1.0), 1)) {
    EXPECT_GT(x, 0);
    EXPECT_LT(x, double(std::numeric_limits<float>::min()));
  }
}

// "max" / "lowest" mean the largest finite value of the tensor's type. For bf16 the f32 maximum
// rounds up to +Inf, so the special must be the bf16 maximum (0x7f7f = 3.3895314e38) instead.
TEST(FillTensor, Bf16MaxAndLowestAreFinite) {
  const double bf16_max = double(core::bf16_to_float(0x7f7f));
  for (double x : fill(DType::bf16, 4, with_specials(uniform(0, 1), {"max"}, 1.0), 1)) {
    EXPECT_TRUE(std::isfinite(x)) << x;
    EXPECT_EQ(x, bf16_max);
  }
  for (double x : fill(DType::bf16, 4, with_specials(uniform(0, 1), {"lowest"}, 1.0), 1)) {
    EXPECT_TRUE(std::isfinite(x)) << x;
    EXPECT_EQ(x, -bf16_max);
  }
}

// Same for f16: "max" must be 65504 and "denormal" a nonzero f16 subnormal (not flushed to +0).
TEST(FillTensor, F16MaxAndDenormal) {
  for (double x : fill(DType::f16, 4, with_specials(uniform(0, 1), {"max"}, 1.0), 1)) EXPECT_EQ(x, 65504.0);
  for (double x : fill(DType::f16, 4, with_specials(uniform(0, 1), {"denormal"}, 1.0), 1)) {
    EXPECT_GT(x, 0) << "denormal special flushed to zero";
    EXPECT_LT(x, std::ldexp(1.0, -14));
  }
}

TEST(FillTensor, DeterministicPerSeed) {
  const Generator g = with_specials(uniform(-1, 1), {"nan", "-0"}, 0.1);
  std::vector<unsigned char> a(4096 * 4), b(a.size()), c(a.size());
  util::Rng ra(77), rb(77), rc(78);
  fill_tensor(a.data(), DType::f32, 4096, g, ra);
  fill_tensor(b.data(), DType::f32, 4096, g, rb);
  fill_tensor(c.data(), DType::f32, 4096, g, rc);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(FillTensor, WritesExactlyCountElements) {
  std::vector<float> buf(12, -7.0f);
  util::Rng rng(1);
  fill_tensor(buf.data(), DType::f32, 10, uniform(0, 1), rng);
  EXPECT_EQ(buf[10], -7.0f);
  EXPECT_EQ(buf[11], -7.0f);
  for (size_t i = 0; i < 10; ++i) EXPECT_NE(buf[i], -7.0f);
}

}  // namespace
}  // namespace kwb::eval
