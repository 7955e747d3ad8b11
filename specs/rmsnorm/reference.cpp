// Trusted reference for rmsnorm: double precision, y = x / sqrt(mean(x^2) + 1e-6) * w.
#include <cmath>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void rmsnorm(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  const float* w = a.in<float>("w");
  double* y = a.out("y");
  const double eps = 1e-6;
  core::parallel_ranges(rows, rows * cols, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      double ss = 0;
      for (int64_t c = 0; c < cols; ++c) ss += double(xr[c]) * double(xr[c]);
      const double rms = std::sqrt(ss / double(cols) + eps);
      for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = double(xr[c]) / rms * double(w[c]);
    }
  });
}

}  // namespace kwb::reference
