// gemm f32, cpu: a simple correct kernel (a template to start from: GET /v1/specs/gemm).
// C = A * B row-major. Each C element accumulates over k in f32, in order; the loops are cut into
// blocks so that a block of B stays in cache while the rows of a block of A pass over it (a plain
// i-p-j loop streams all of B from memory once per row of C: minutes at 4096^3).
#include <algorithm>
#include <cstdint>

extern "C" void kwb_gemm_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  constexpr int64_t MB = 32, KB = 256, NB = 512;
  for (int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
  for (int64_t j0 = 0; j0 < n; j0 += NB) {
    const int64_t j1 = std::min(n, j0 + NB);
    for (int64_t p0 = 0; p0 < k; p0 += KB) {
      const int64_t p1 = std::min(k, p0 + KB);
      for (int64_t i0 = 0; i0 < m; i0 += MB) {
        const int64_t i1 = std::min(m, i0 + MB);
        for (int64_t i = i0; i < i1; ++i) {
          float* ci = c + i * n;
          for (int64_t p = p0; p < p1; ++p) {
            const float aip = a[i * k + p];
            const float* bp = b + p * n;
            for (int64_t j = j0; j < j1; ++j) ci[j] += aip * bp[j];
          }
        }
      }
    }
  }
}
