// kwb-expect: op=softmax status=incorrect reason="only row 0 is right"
// Partial work: only the first row is computed.
#include <cmath>
#include <cstdint>
extern "C" void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  (void)rows;
  float m = -INFINITY;
  for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
  double s = 0;
  for (int64_t c = 0; c < cols; ++c) s += std::exp(double(x[c]) - m);
  for (int64_t c = 0; c < cols; ++c) y[c] = float(std::exp(double(x[c]) - m) / s);
}
