// An honest f32 layernorm with PyTorch's method: one Welford pass per row in f32 (a running mean
// and sum of squared deviations, updated element by element), then y = (x - mean) * rstd * gamma
// + beta in f32. No double anywhere: it makes the errors any same-precision kernel makes, which
// specs/layernorm/spec.json's tolerance must admit under every distribution and on any drawn
// shape (test_layernorm_tolerance.cpp; issue 37: version 1 rejected it on rows=2333, cols=2).
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
