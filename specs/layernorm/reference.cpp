// Trusted reference for layernorm: double precision, two passes (mean, then biased variance of
// the deviations), y = (x - mean) / sqrt(var + 1e-5) * gamma + beta.
#include <cmath>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void layernorm(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  const float* gamma = a.in<float>("gamma");
  const float* beta = a.in<float>("beta");
  double* y = a.out("y");
  const double eps = 1e-5;
  core::parallel_ranges(rows, rows * cols, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += double(xr[c]);
      const double mean = s / double(cols);
      double ss = 0;
      for (int64_t c = 0; c < cols; ++c) {
        const double d = double(xr[c]) - mean;
        ss += d * d;
      }
      const double rstd = 1.0 / std::sqrt(ss / double(cols) + eps);
      for (int64_t c = 0; c < cols; ++c)
        y[r * cols + c] = (double(xr[c]) - mean) * rstd * double(gamma[c]) + double(beta[c]);
    }
  });
}

}  // namespace kwb::reference
