// transpose f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/transpose).
#include <cstdint>

extern "C" void kwb_transpose_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = x[r * cols + c];
}
