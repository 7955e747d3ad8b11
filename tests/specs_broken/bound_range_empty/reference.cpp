// Reference of the broken-spec case bound_range_empty: loss[r] = logsumexp(logits[r]) - logits[r, labels[r]]
#include <cmath>
#include <cstdint>

#include "core/reference.hpp"

namespace kwb::reference {

void bound_range_empty(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), vocab = a.param("vocab");
  const float* x = a.in<float>("logits");
  const int32_t* labels = a.in<int32_t>("labels");
  double* loss = a.out("loss");
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < vocab; ++c) m = std::fmax(m, double(x[r * vocab + c]));
    for (int64_t c = 0; c < vocab; ++c) s += std::exp(double(x[r * vocab + c]) - m);
    loss[r] = m + std::log(s) - double(x[r * vocab + labels[r]]);
  }
}

}  // namespace kwb::reference
