// Trusted reference for vector_add: the correctly rounded f32 sum.
// a + b is formed exactly enough in double and rounded once to f32; for + this double rounding is
// innocuous (53 >= 2*24 + 2), so the result is the IEEE f32 sum, including overflow to Inf,
// Inf - Inf = NaN and signed zeros.
#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void vector_add(const core::ReferenceArgs& a) {
  const int64_t n = a.param("n");
  const float* x = a.in<float>("a");
  const float* y = a.in<float>("b");
  double* c = a.out("c");
  core::parallel_ranges(n, n, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) c[i] = double(float(double(x[i]) + double(y[i])));
  });
}

}  // namespace kwb::reference
