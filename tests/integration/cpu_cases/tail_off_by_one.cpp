// kwb-expect: op=vector_add status=incorrect reason="only the last 1 elements are wrong"
// The loop stops one element early: the last element keeps the poison pattern.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n - 1; ++i) c[i] = a[i] + b[i];
}
