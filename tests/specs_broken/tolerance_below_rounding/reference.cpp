// Reference of the broken-spec case tolerance_below_rounding: y = x / 3
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void tolerance_below_rounding(const core::ReferenceArgs& a) {
  const int64_t n = a.param("rows") * a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (int64_t i = 0; i < n; ++i) y[i] = double(x[i]) / 3.0;
}

}  // namespace kwb::reference
