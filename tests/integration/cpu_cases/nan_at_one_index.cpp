// kwb-expect: op=vector_add status=incorrect reason="a single element is wrong"
// A NaN at one index of every output (index 3, or 0 for shorter vectors).
#include <cmath>
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  c[n > 3 ? 3 : 0] = NAN;
}
