// Generators whose values depend on the whole tensor (eval/inputs.cpp): offsets, distinct and
// permutation, and the fp8 and i8 dtypes of the ordinary generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/dtype.hpp"
#include "eval/inputs.hpp"

namespace kwb::eval {
namespace {

using core::DType;
using core::Generator;

std::vector<int64_t> fill_ints(DType t, size_t n, const Generator& g, uint64_t seed, size_t row = 0) {
  std::vector<unsigned char> buf(n * core::dtype_size(t));
  fill_tensor_seeded(buf.data(), t, n, g, seed, row);
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = int64_t(core::load_as_double(buf.data(), t, i));
  return out;
}

Generator offsets(double end, double min_length, double max_length) {
  Generator g;
  g.kind = "offsets";
  g.end = end;
  g.min_length = min_length;
  g.max_length = max_length;
  return g;
}

TEST(FillTensor, OffsetsStartAtZeroEndAtTheParamAndKeepTheirLengthsInBounds) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    for (auto [n, end, lo, hi] : {std::tuple{9, 1000, 0, 1000}, {9, 1000, 100, 130}, {4, 6, 2, 2}, {65, 65, 0, 3},
                                  {1, 0, 0, 0}, {2, 7, 0, 7}}) {
      for (DType t : {DType::i32, DType::i64}) {
        auto v = fill_ints(t, size_t(n), offsets(end, lo, hi), seed);
        ASSERT_EQ(v.front(), 0);
        ASSERT_EQ(v.back(), end);
        for (size_t i = 1; i < v.size(); ++i) {
          ASSERT_GE(v[i] - v[i - 1], lo) << i;
          ASSERT_LE(v[i] - v[i - 1], hi) << i;
        }
      }
    }
  }
}

TEST(FillTensor, OffsetsVaryTheirLengthsAndAreReproducible) {
  auto a = fill_ints(DType::i32, 33, offsets(4096, 0, 4096), 5);
  EXPECT_EQ(a, fill_ints(DType::i32, 33, offsets(4096, 0, 4096), 5));
  std::set<int64_t> lengths;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto v = fill_ints(DType::i32, 33, offsets(4096, 0, 4096), seed);
    for (size_t i = 1; i < v.size(); ++i) lengths.insert(v[i] - v[i - 1]);
  }
  EXPECT_TRUE(lengths.contains(0)) << "no empty sequence in 20 draws";
  EXPECT_GT(lengths.size(), 100u);
}

TEST(FillTensor, DistinctValuesPerRowAndPerTensor) {
  Generator g;
  g.kind = "distinct";
  g.lo = 10;
  g.hi = 17;
  g.per_row = true;
  auto v = fill_ints(DType::i32, 5 * 8, g, 3, 8);  // 5 rows of 8: each a permutation of 10..17
  for (size_t r = 0; r < 5; ++r) {
    std::set<int64_t> row(v.begin() + long(r * 8), v.begin() + long(r * 8 + 8));
    EXPECT_EQ(row, (std::set<int64_t>{10, 11, 12, 13, 14, 15, 16, 17}));
  }
  g.per_row = false;
  g.lo = -1000000;
  g.hi = 1000000000;  // sparse: drawn by rejection
  auto w = fill_ints(DType::i32, 5000, g, 4);
  EXPECT_EQ(std::set<int64_t>(w.begin(), w.end()).size(), 5000u);
  for (int64_t x : w) {
    ASSERT_GE(x, -1000000);
    ASSERT_LE(x, 1000000000);
  }
}

TEST(FillTensor, PermutationOfTheRowOrTensor) {
  Generator g;
  g.kind = "permutation";
  auto v = fill_ints(DType::i64, 100, g, 9);
  std::vector<int64_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(sorted[size_t(i)], i);
  EXPECT_NE(v, sorted);  // shuffled
  g.per_row = true;
  auto rows = fill_ints(DType::u8, 3 * 4, g, 9, 4);
  for (size_t r = 0; r < 3; ++r)
    EXPECT_EQ(std::set<int64_t>(rows.begin() + long(r * 4), rows.begin() + long(r * 4 + 4)),
              (std::set<int64_t>{0, 1, 2, 3}));
}

TEST(FillTensor, Fp8AndI8Inputs) {
  Generator g;
  g.kind = "uniform";
  g.lo = -448;
  g.hi = 448;
  g.specials = {"max", "lowest", "denormal", "nan"};
  g.specials_fraction = 0.2;
  std::vector<unsigned char> buf(4096);
  fill_tensor_seeded(buf.data(), DType::f8e4m3, buf.size(), g, 1);
  std::set<double> seen;
  for (size_t i = 0; i < buf.size(); ++i) {
    const double x = core::load_as_double(buf.data(), DType::f8e4m3, i);
    if (std::isnan(x)) continue;
    ASSERT_LE(std::fabs(x), 448);
    seen.insert(x);
  }
  EXPECT_TRUE(seen.contains(448) && seen.contains(-448) && seen.contains(0x1p-9 * 3));
  g.lo = -57344;
  g.hi = 57344;
  g.specials = {"inf", "max"};
  fill_tensor_seeded(buf.data(), DType::f8e5m2, buf.size(), g, 2);
  bool inf = false;
  for (size_t i = 0; i < buf.size(); ++i) inf = inf || std::isinf(core::load_as_double(buf.data(), DType::f8e5m2, i));
  EXPECT_TRUE(inf);
  Generator ints;
  ints.kind = "int_uniform";
  ints.lo = -128;
  ints.hi = 127;
  auto v = fill_ints(DType::i8, 10000, ints, 3);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), -128);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 127);
}

}  // namespace
}  // namespace kwb::eval
