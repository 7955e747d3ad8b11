// layernorm f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/layernorm).
// PyTorch's method in f32 throughout: one Welford pass per row (a running mean and sum of squared
// deviations), eps = 1e-5. A same-precision kernel: `kwb spec check` runs it to measure how much
// of the tolerance such kernels use (docs/specs.md "Checking a spec", check 11).
#include <cmath>
#include <cstdint>

extern "C" void kwb_layernorm_f32(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                                  int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float mean = 0.0f, m2 = 0.0f;
    for (int64_t c = 0; c < cols; ++c) {
      const float delta = xr[c] - mean;
      mean += delta / float(c + 1);
      m2 += delta * (xr[c] - mean);
    }
    const float rstd = 1.0f / std::sqrt(m2 / float(cols) + 1e-5f);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  }
}
