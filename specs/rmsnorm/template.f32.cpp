// rmsnorm f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/rmsnorm).
// y = x / sqrt(mean(x^2) + 1e-6) * w per row, in f32 throughout: the sum of squares in 8
// interleaved f32 accumulators (what a vectorised loop does). A same-precision kernel: `kwb spec
// check` runs it to measure how much of the tolerance such kernels use (docs/specs.md "Checking a
// spec", check 11).
#include <cmath>
#include <cstdint>

extern "C" void kwb_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float acc[8] = {};
    for (int64_t c = 0; c < cols; ++c) acc[c % 8] += xr[c] * xr[c];
    const float ss = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    const float rstd = 1.0f / std::sqrt(ss / float(cols) + 1e-6f);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = xr[c] * rstd * w[c];
  }
}
