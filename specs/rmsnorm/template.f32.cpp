// rmsnorm f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/rmsnorm).
// y = x / sqrt(mean(x^2) + 1e-6) * w per row, the sum of squares in double.
#include <cmath>
#include <cstdint>

extern "C" void kwb_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c) ss += double(xr[c]) * double(xr[c]);
    const double rms = std::sqrt(ss / double(cols) + 1e-6);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = float(double(xr[c]) / rms * double(w[c]));
  }
}
