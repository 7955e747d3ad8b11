// Trusted reference for prefix_sum: inclusive scan in uint32 arithmetic (exactly modulo 2^32),
// read back as two's-complement int32 (the conversion is defined as modular since C++20).
#include "core/reference.hpp"

namespace kwb::reference {

void prefix_sum(const core::ReferenceArgs& a) {
  const int64_t n = a.param("n");
  const int32_t* x = a.in<int32_t>("x");
  double* y = a.out("y");
  uint32_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += static_cast<uint32_t>(x[i]);
    y[i] = double(static_cast<int32_t>(s));
  }
}

}  // namespace kwb::reference
