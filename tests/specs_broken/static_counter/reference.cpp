// Reference of the broken-spec case static_counter: not deterministic (static counter)
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void static_counter(const core::ReferenceArgs& a) {
  const int64_t n = a.param("rows") * a.param("cols");
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  static int calls = 0;
  ++calls;
  for (int64_t i = 0; i < n; ++i) y[i] = double(x[i]) + calls;
}

}  // namespace kwb::reference
