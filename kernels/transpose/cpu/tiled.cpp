// transpose, CPU: cache-blocked. The matrix is walked in 64 x 64 tiles (16 KiB read + 16 KiB
// written, L1 sized); inside a tile, 8 x 8 blocks are transposed in registers (with AVX: eight
// 8-wide loads, unpack/shuffle/permute, eight 8-wide stores; otherwise a fixed-size portable
// loop) and ragged tile edges use scalar loops. Values are only moved, never computed on, so NaN
// payloads, -0 and subnormals survive.
#include <algorithm>
#include <cstdint>
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace {

constexpr int64_t kTile = 64;  // multiple of 8

// y[j][i] = x[i][j] for an 8 x 8 block; ldx / ldy are the row strides of x / y.
inline void block8(const float* x, float* y, int64_t ldx, int64_t ldy) {
#if defined(__AVX__)
  const __m256 r0 = _mm256_loadu_ps(x + 0 * ldx), r1 = _mm256_loadu_ps(x + 1 * ldx);
  const __m256 r2 = _mm256_loadu_ps(x + 2 * ldx), r3 = _mm256_loadu_ps(x + 3 * ldx);
  const __m256 r4 = _mm256_loadu_ps(x + 4 * ldx), r5 = _mm256_loadu_ps(x + 5 * ldx);
  const __m256 r6 = _mm256_loadu_ps(x + 6 * ldx), r7 = _mm256_loadu_ps(x + 7 * ldx);
  // Interleave pairs of rows, then pairs of pairs, then swap 128-bit halves.
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(y + 0 * ldy, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(y + 1 * ldy, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(y + 2 * ldy, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(y + 3 * ldy, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(y + 4 * ldy, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(y + 5 * ldy, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(y + 6 * ldy, _mm256_permute2f128_ps(s2, s6, 0x31));
  _mm256_storeu_ps(y + 7 * ldy, _mm256_permute2f128_ps(s3, s7, 0x31));
#else
  float t[8][8];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) t[j][i] = x[i * ldx + j];
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 8; ++i) y[j * ldy + i] = t[j][i];
#endif
}

}  // namespace

extern "C" void kwb_transpose_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      int64_t r = r0;
      for (; r + 8 <= r1; r += 8) {
        int64_t c = c0;
        for (; c + 8 <= c1; c += 8) block8(x + r * cols + c, y + c * rows + r, cols, rows);
        for (; c < c1; ++c)
          for (int64_t i = r; i < r + 8; ++i) y[c * rows + i] = x[i * cols + c];
      }
      for (; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) y[c * rows + r] = x[r * cols + c];
    }
  }
}
