// Trusted reference for softmax: double precision, max-subtracted.
#include <cmath>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void softmax(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  core::parallel_ranges(rows, rows * cols, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      double m = -INFINITY;
      for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, double(xr[c]));
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += std::exp(double(xr[c]) - m);
      for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(double(xr[c]) - m) / s;
    }
  });
}

}  // namespace kwb::reference
