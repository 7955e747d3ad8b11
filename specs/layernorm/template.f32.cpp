// layernorm f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/layernorm).
// Two passes per row in double (mean, then the biased variance), eps = 1e-5.
#include <cmath>
#include <cstdint>

extern "C" void kwb_layernorm_f32(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                                  int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += xr[c];
    const double mean = s / double(cols);
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c) ss += (xr[c] - mean) * (xr[c] - mean);
    const double rstd = 1.0 / std::sqrt(ss / double(cols) + 1e-5);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = float((xr[c] - mean) * rstd * gamma[c] + beta[c]);
  }
}
