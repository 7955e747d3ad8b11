// Reference of the broken-spec case reference_warning: compiles with a warning
#include <cstddef>
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void reference_warning(const core::ReferenceArgs& a) {
  const int64_t n = a.param("rows") * a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (size_t i = 0; i < n; ++i) y[i] = double(x[i]);
}

}  // namespace kwb::reference
