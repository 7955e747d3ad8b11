// gemm bf16, cpu: a simple correct kernel (a template to start from: GET /v1/specs/gemm).
// A and B are bf16 bit patterns (uint16_t); widening to f32 is exact (the bits shifted into the
// top half of a float). C = A * B row-major, f32 accumulation in order over k, f32 output. B is
// widened once into a scratch copy; the loops are blocked as in the f32 template.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
inline float widen(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace

extern "C" void kwb_gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, int64_t m, int64_t n, int64_t k) {
  constexpr int64_t MB = 32, KB = 256, NB = 512;
  std::vector<float> bw(size_t(k * n));
  for (int64_t i = 0; i < k * n; ++i) bw[size_t(i)] = widen(b[i]);
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
            const float aip = widen(a[i * k + p]);
            const float* bp = bw.data() + p * n;
            for (int64_t j = j0; j < j1; ++j) ci[j] += aip * bp[j];
          }
        }
      }
    }
  }
}
