// Reference of the broken-spec case alignment_not_power_of_two: y = x
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void alignment_not_power_of_two(const core::ReferenceArgs& a) {
  const int64_t n = a.param("rows") * a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (int64_t i = 0; i < n; ++i) y[i] = double(x[i]);
}

}  // namespace kwb::reference
