// Trusted reference for transpose: y[c, r] = x[r, c] (every f32 value, NaN and -0 included,
// is exactly representable as a double).
#include <algorithm>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void transpose(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  // Every (r, c) is visited exactly once; the visits are grouped in 32 x 32 tiles only so that
  // large power-of-two matrices do not thrash the cache.
  constexpr int64_t kTile = 32;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  core::parallel_ranges(row_tiles, rows * cols, [&](int64_t t0, int64_t t1) {
    for (int64_t r0 = t0 * kTile; r0 < std::min(rows, t1 * kTile); r0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t c = c0; c < c1; ++c)
          for (int64_t r = r0; r < r1; ++r) y[c * rows + r] = double(x[r * cols + c]);
      }
    }
  });
}

}  // namespace kwb::reference
