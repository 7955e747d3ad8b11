// Trusted reference for row_sum: each row summed in double, left to right.
#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void row_sum(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  core::parallel_ranges(rows, rows * cols, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += double(xr[c]);
      y[r] = s;
    }
  });
}

}  // namespace kwb::reference
