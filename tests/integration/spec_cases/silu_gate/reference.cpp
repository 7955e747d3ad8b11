// Trusted reference for silu_gate, in double: y = x / (1 + exp(-x)) * g.
#include <cmath>

#include "core/reference.hpp"

namespace kwb::reference {

void silu_gate(const core::ReferenceArgs& a) {
  const int64_t n = a.param("n");
  const uint16_t* x = a.in<uint16_t>("x");
  const uint16_t* g = a.in<uint16_t>("g");
  double* y = a.out("y");
  for (int64_t i = 0; i < n; ++i) {
    const double xv = core::bf16_to_float(x[i]), gv = core::bf16_to_float(g[i]);
    y[i] = xv / (1.0 + std::exp(-xv)) * gv;
  }
}

}  // namespace kwb::reference
