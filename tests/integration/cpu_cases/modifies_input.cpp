// kwb-expect: op=softmax status=incorrect reason="input x was modified"
// Computes correctly but uses its input as scratch space.
#include <cmath>
#include <cstdint>
extern "C" void kwb_softmax_f32(const float* x_in, float* y, int64_t rows, int64_t cols) {
  float* x = const_cast<float*>(x_in);
  for (int64_t r = 0; r < rows; ++r) {
    float* xr = x + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      xr[c] = std::exp(xr[c] - m);
      s += xr[c];
    }
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = float(xr[c] / s);
  }
}
