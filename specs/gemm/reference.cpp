// Trusted reference for gemm: C = A * B accumulated in double from the exact input values
// (f32 as is, bf16 decoded exactly), row by row in i-p-j order so the inner loop vectorises.
#include <algorithm>
#include <stdexcept>
#include <vector>

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
  double* c = a.out("c");
  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int64_t p = 0; p < k; ++p) {
      const double aip = A[size_t(i * k + p)];
      const double* bp = B.data() + p * n;
      for (int64_t j = 0; j < n; ++j) row[size_t(j)] += aip * bp[j];
    }
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = row[size_t(j)];
  }
}

}  // namespace kwb::reference
