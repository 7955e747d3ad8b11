// kwb-expect: op=transpose status=incorrect reason="output y:"
// Adds +0.0f, which turns -0 into +0: a copy must preserve the sign of zero.
#include <cstdint>
extern "C" void kwb_transpose_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = x[r * cols + c] + 0.0f;
}
