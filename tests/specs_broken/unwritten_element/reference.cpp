// Reference of the broken-spec case unwritten_element: leaves element 3 unwritten
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void unwritten_element(const core::ReferenceArgs& a) {
  const int64_t n = a.param("rows") * a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (int64_t i = 0; i < n; ++i)
    if (i != 3) y[i] = double(x[i]);
}

}  // namespace kwb::reference
