// Trusted reference for transpose: y[c, r] = x[r, c] (every f32 value, NaN and -0 included,
// is exactly representable as a double).
#include "core/reference.hpp"

namespace kwb::reference {

void transpose(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = double(x[r * cols + c]);
}

}  // namespace kwb::reference
