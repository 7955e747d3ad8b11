// Trusted reference for histogram: count every byte value, one element at a time.
#include <array>

#include "core/reference.hpp"

namespace kwb::reference {

void histogram(const core::ReferenceArgs& a) {
  const int64_t n = a.param("n");
  const uint8_t* x = a.in<uint8_t>("x");
  double* bins = a.out("bins");
  std::array<uint64_t, 256> count{};
  for (int64_t i = 0; i < n; ++i) ++count[x[i]];
  for (int v = 0; v < 256; ++v) bins[v] = double(count[v]);
}

}  // namespace kwb::reference
