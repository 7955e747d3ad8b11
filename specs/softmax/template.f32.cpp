// softmax f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/softmax).
// Numerically stable: exp(x - row max), summed in double.
#include <cmath>
#include <cstdint>

extern "C" void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, double(xr[c]));
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(double(xr[c]) - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = float(std::exp(double(xr[c]) - m) / s);
  }
}
