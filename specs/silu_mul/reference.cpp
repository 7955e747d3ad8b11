// Trusted reference for silu_mul, in double: out[t, i] = g / (1 + exp(-g)) * u with g = x[t, i]
// and u = x[t, d + i] (gate first, then up, in each token's row of 2*d).
#include <cmath>

#include "core/dtype.hpp"
#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void silu_mul(const core::ReferenceArgs& a) {
  const int64_t tokens = a.param("tokens"), d = a.param("d");
  const uint16_t* x = a.in<uint16_t>("x");
  double* out = a.out("out");
  core::parallel_ranges(tokens, tokens * d, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      for (int64_t i = 0; i < d; ++i) {
        const double g = core::bf16_to_float(x[t * 2 * d + i]), u = core::bf16_to_float(x[t * 2 * d + d + i]);
        out[t * d + i] = g / (1.0 + std::exp(-g)) * u;
      }
  });
}

}  // namespace kwb::reference
