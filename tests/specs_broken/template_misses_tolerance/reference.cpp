// Reference of the broken-spec case template_misses_tolerance: y[r] = sum of row r, in double.
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void template_misses_tolerance(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += double(x[r * cols + c]);
    y[r] = s;
  }
}

}  // namespace kwb::reference
