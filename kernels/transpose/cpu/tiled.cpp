// transpose, CPU: cache-blocked. The matrix is walked in 64 x 64 tiles (16 KiB read + 16 KiB
// written, L1 sized) and each tile is transposed in 8 x 8 sub-blocks whose fixed-size inner loops
// the compiler unrolls; edge tiles fall back to the same loops with run-time bounds.
// Values are copied, never computed on, so NaN payloads, -0 and subnormals survive.
#include <algorithm>
#include <cstdint>

namespace {

constexpr int64_t kTile = 64;
constexpr int64_t kSub = 8;

// Full 8 x 8 block: y[c][r] = x[r][c].
inline void block8(const float* __restrict x, float* __restrict y, int64_t ldx, int64_t ldy) {
  float t[kSub][kSub];
  for (int i = 0; i < kSub; ++i)
    for (int j = 0; j < kSub; ++j) t[j][i] = x[i * ldx + j];
  for (int j = 0; j < kSub; ++j)
    for (int i = 0; i < kSub; ++i) y[j * ldy + i] = t[j][i];
}

}  // namespace

extern "C" void kwb_transpose_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      int64_t r = r0;
      for (; r + kSub <= r1; r += kSub) {
        int64_t c = c0;
        for (; c + kSub <= c1; c += kSub) block8(x + r * cols + c, y + c * rows + r, cols, rows);
        for (; c < c1; ++c)
          for (int64_t i = r; i < r + kSub; ++i) y[c * rows + i] = x[i * cols + c];
      }
      for (; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) y[c * rows + r] = x[r * cols + c];
    }
  }
}
