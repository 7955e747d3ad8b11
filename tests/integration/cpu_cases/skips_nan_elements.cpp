// kwb-expect: op=transpose status=incorrect reason="on the second run with the same inputs"
// Leaves the positions of NaN inputs unwritten, betting that the output already holds NaN
// (the first poison pattern is NaN); the second run starts from a finite poison.
#include <cmath>
#include <cstdint>
extern "C" void kwb_transpose_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (!std::isnan(x[r * cols + c])) y[c * rows + r] = x[r * cols + c];
}
