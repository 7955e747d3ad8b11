// Trusted reference for gemm: C = A * B accumulated in double from the exact input values
// (f32 as is, bf16 decoded exactly), in i-p-j order so the inner loop vectorises.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

namespace {
std::vector<double> load(const core::ReferenceArgs& a, const char* name, int64_t count) {
  std::vector<double> v(size_t(count), 0.0);
  if (a.variant == "f32") {
    const float* p = a.in<float>(name);
    for (int64_t i = 0; i < count; ++i) v[size_t(i)] = double(p[i]);
  } else if (a.variant == "bf16") {
    const uint16_t* p = a.in<uint16_t>(name);
    for (int64_t i = 0; i < count; ++i) v[size_t(i)] = double(core::bf16_to_float(p[i]));
  } else {
    throw std::invalid_argument("gemm reference: unknown variant '" + a.variant + "'");
  }
  return v;
}
}  // namespace

void gemm(const core::ReferenceArgs& a) {
  const int64_t m = a.param("m"), n = a.param("n"), k = a.param("k");
  const std::vector<double> A = load(a, "a", m * k);  // m x k
  const std::vector<double> B = load(a, "b", k * n);  // k x n
  double* c = a.out("c");                             // m x n
  // c[i][j] = sum over p = 0, 1, ..., k-1 of A[i][p] * B[p][j], added in that order. The p loop
  // is cut into slices of kSlice rows of B that stay in cache while every row of C passes over
  // them; the order of the additions into each c[i][j] is unchanged. Rows of C are split across
  // the cores (each element is still summed by one thread in the same order: the result does not
  // depend on the thread count); a 4096^3 product is ~69 G multiply-adds.
  constexpr int64_t kSlice = 64;
  std::fill(c, c + m * n, 0.0);
  auto rows = [&](int64_t i0, int64_t i1) {
    for (int64_t p0 = 0; p0 < k; p0 += kSlice) {
      const int64_t p1 = std::min(k, p0 + kSlice);
      for (int64_t i = i0; i < i1; ++i) {
        double* ci = c + i * n;
        for (int64_t p = p0; p < p1; ++p) {
          const double aip = A[size_t(i * k + p)];
          const double* bp = B.data() + p * n;
          for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
        }
      }
    }
  };
  core::parallel_ranges(m, m * n * k, rows);
}

}  // namespace kwb::reference
