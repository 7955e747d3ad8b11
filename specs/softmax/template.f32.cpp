// softmax f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/softmax).
// Numerically stable, in f32 throughout: exp(x - row max), summed in one running f32 sum. A
// same-precision kernel: `kwb spec check` runs it to measure how much of the tolerance such
// kernels use (docs/specs.md "Checking a spec", check 11).
#include <cmath>
#include <cstdint>

extern "C" void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    float s = 0.0f;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
  }
}
