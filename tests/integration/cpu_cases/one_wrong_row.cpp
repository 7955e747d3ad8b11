// kwb-expect: op=row_sum status=incorrect reason="output y: 1 of"
// Row 2 is summed without its first element.
#include <cstdint>
extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = (r == 2 ? 1 : 0); c < cols; ++c) s += x[r * cols + c];
    y[r] = float(s);
  }
}
