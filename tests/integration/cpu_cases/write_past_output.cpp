// kwb-expect: op=vector_add status=incorrect reason="past the end of output c"
// Writes one element past the end of c (an out-of-bounds write the guard zone catches).
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i <= n; ++i) c[i] = (i < n ? a[i] + b[i] : 0.0f);
}
