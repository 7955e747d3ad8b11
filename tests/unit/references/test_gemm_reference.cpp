// The gemm reference splits rows of C across threads for large products; every element must
// still be summed in the same order, so the result equals a one-thread sum bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/reference.hpp"
#include "reference_registry.hpp"

namespace {

TEST(GemmReference, ThreadedRowsEqualTheOneThreadSumExactly) {
  const int64_t m = 300, n = 211, k = 301;  // m*n*k > 2^24: the threaded path
  std::vector<float> a(size_t(m * k)), b(size_t(k * n));
  uint32_t x = 12345;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    return float(int(x >> 8) % 2001 - 1000) / 7.0f;
  };
  for (auto& v : a) v = next();
  for (auto& v : b) v = next();
  std::vector<double> c(size_t(m * n));
  kwb::core::ReferenceArgs args;
  args.variant = "f32";
  args.params = {{"m", m}, {"n", n}, {"k", k}};
  args.inputs = {{"a", a.data()}, {"b", b.data()}};
  args.outputs = {{"c", &c}};
  auto fn = kwb::reference::find("gemm");
  ASSERT_NE(fn, nullptr);
  fn(args);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += double(a[size_t(i * k + p)]) * double(b[size_t(p * n + j)]);
      ASSERT_EQ(std::memcmp(&s, &c[size_t(i * n + j)], sizeof s), 0) << "c[" << i << "][" << j << "]";
    }
}

}  // namespace
