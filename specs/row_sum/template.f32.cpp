// row_sum f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/row_sum).
// Each row is summed in double and rounded once, which meets the tolerance on any row length.
#include <cstdint>

extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += x[r * cols + c];
    y[r] = float(s);
  }
}
