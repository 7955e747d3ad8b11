// kwb-expect: op=layernorm status=incorrect reason="(inputs: large_offset)"
// One pass in f32 with var = E[x^2] - E[x]^2: on rows near 1e4 (the large_offset distribution)
// E[x^2] ~ 1e8 carries an ulp of 8 per term and the difference cancels; the tolerance that admits
// an honest f32 Welford kernel (layernorm_cases/welford_f32.cpp) still rejects it.
#include <cmath>
#include <cstdint>

extern "C" void kwb_layernorm_f32(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                                  int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float s = 0.0f, s2 = 0.0f;
    for (int64_t c = 0; c < cols; ++c) {
      s += xr[c];
      s2 += xr[c] * xr[c];
    }
    const float mean = s / float(cols);
    const float var = std::fmax(s2 / float(cols) - mean * mean, 0.0f);
    const float rstd = 1.0f / std::sqrt(var + 1e-5f);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  }
}
